// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-vectorize-contractions{vector-width=16 rows=8 depth=256}),canonicalize)' | FileCheck %s

// A linear layer at a batch of 12 to 16 rows (one vector of lanes, most of
// it used): C^T = W A^T. A's rows are transposed into the panel, 16 x 16
// blocks by register shuffles (k = 100: 6 blocks, then 4 values element by
// element, rows past 13 zero); each tile of 16 columns of C keeps one
// vector of 13 rows per column, started from the bias, and adds a
// broadcast element of W (read in place along its rows; columns past n =
// 40 read row 39) times the panel's row k. The tile is transposed back,
// the ReLU applied to each row of C, and only C's 13 rows are written.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>

// CHECK-LABEL: func.func @swapped_rows
// CHECK-SAME:    (%[[A:.*]]: tensor<13x100xf32>, %[[W:.*]]: tensor<40x100xf32>, %[[BIAS:.*]]: tensor<40xf32>)
// CHECK-NOT:     vector.reduction
// CHECK:         %[[PACKED:.*]] = scf.for %{{.*}} = %c0 to %c96 step %c16
// CHECK:           vector.transfer_read %[[A]][%c12, %{{.*}}]{{.*}} : tensor<13x100xf32>, vector<16xf32>
// CHECK:           vector.shuffle
// CHECK-COUNT-16:  vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<256x32xf32>
// CHECK:         %[[PANEL:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %[[PACKED]])
// CHECK:           scf.for %{{.*}} = %c96 to %c100
// CHECK:             tensor.extract %[[A]]
// CHECK:         scf.for %[[COL:.*]] = %c0 to %c40 step %c16
// CHECK-COUNT-16:  arith.minui %{{.*}}, %c39 : index
// CHECK:           tensor.extract %[[BIAS]]
// CHECK:           vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK:           scf.for %[[K:.*]] = %c0 to %c100 step %c1
// CHECK-NEXT:        %[[ROW:.*]] = vector.transfer_read %[[PANEL]][%[[K]], %c0]{{.*}} : tensor<256x32xf32>, vector<16xf32>
// CHECK-NEXT:        tensor.extract %[[W]][%{{.*}}, %[[K]]] : tensor<40x100xf32>
// CHECK-NEXT:        vector.broadcast
// CHECK-NEXT:        vector.fma %{{.*}}, %[[ROW]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-14:    vector.fma %{{.*}}, %[[ROW]], %{{.*}} : vector<16xf32>
// CHECK:             tensor.extract %[[W]][%{{.*}}, %[[K]]]
// CHECK-NEXT:        vector.broadcast
// CHECK-NEXT:        vector.fma %{{.*}}, %[[ROW]], %{{.*}} : vector<16xf32>
// CHECK-NEXT:        scf.yield
// CHECK:           vector.shuffle
// CHECK-COUNT-13:  arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:           vector.transfer_write %{{.*}}, %{{.*}}[%c0, %[[COL]]] : vector<16xf32>, tensor<13x40xf32>
// CHECK-COUNT-11:  vector.transfer_write
// CHECK-NEXT:      vector.transfer_write %{{.*}}, %{{.*}}[%c12, %[[COL]]] : vector<16xf32>, tensor<13x40xf32>
// CHECK-NEXT:      scf.yield
// CHECK-NOT:     linalg.generic
func.func @swapped_rows(%a: tensor<13x100xf32>, %w: tensor<40x100xf32>, %bias: tensor<40xf32>) -> tensor<13x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<13x40xf32>
  %init = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<40xf32>) outs(%empty : tensor<13x40xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<13x40xf32>
  %p = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<13x100xf32>, tensor<40x100xf32>) outs(%init : tensor<13x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x40xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<13x40xf32>) outs(%empty : tensor<13x40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<13x40xf32>
  return %r : tensor<13x40xf32>
}

// -----

// More than one k block (k = 600: 256, 256, 88): each tile reads its
// partial sums back from C after the first block, transposed like the
// tile (16 rows of C, clamped to the last of 14), and writes them again.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @blocks_of_k
// CHECK:         scf.for %[[KB:.*]] = %c0 to %c600 step %c256
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:             %[[FIRST:.*]] = arith.cmpi eq, %[[KB]], %c0
// CHECK:             scf.if %[[FIRST]]
// CHECK:             } else {
// CHECK-COUNT-14:      vector.transfer_read %{{.*}} : tensor<14x32xf32>, vector<16xf32>
// CHECK-NEXT:          vector.transfer_read %{{.*}}[%c13, %{{.*}}]{{.*}} : tensor<14x32xf32>, vector<16xf32>
// CHECK-NEXT:          vector.transfer_read %{{.*}}[%c13, %{{.*}}]{{.*}} : tensor<14x32xf32>, vector<16xf32>
// CHECK-NEXT:          vector.shuffle
func.func @blocks_of_k(%a: tensor<14x600xf32>, %w: tensor<32x600xf32>) -> tensor<14x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<14x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<14x32xf32>) -> tensor<14x32xf32>
  %p = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<14x600xf32>, tensor<32x600xf32>) outs(%init : tensor<14x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<14x32xf32>
  return %p : tensor<14x32xf32>
}

// -----

// Fewer rows than 3/4 of a vector (8 of 16) keep the dot products; a
// dynamic row count (here each parallel block's, of at most 256 rows)
// chooses at run time.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @eight_rows
// CHECK-NOT:     tensor<256x32xf32>, vector<16xf32>
// CHECK:         vector.reduction <add>
func.func @eight_rows(%a: tensor<8x64xf32>, %w: tensor<32x64xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %p = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<8x64xf32>, tensor<32x64xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %p : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         scf.forall
// CHECK:           %[[M:.*]] = arith.minui %{{.*}}, %c256
// CHECK:         %[[MANY:.*]] = arith.cmpi uge, %[[M]], %c12
// CHECK:         %[[FEW:.*]] = arith.cmpi ule, %[[M]], %c16
// CHECK:         %[[SWAP:.*]] = arith.andi %[[MANY]], %[[FEW]]
// CHECK:         scf.if %[[SWAP]]
// CHECK:           vector.fma %{{.*}} : vector<16xf32>
// CHECK:         } else {
// CHECK:           vector.reduction <add>
func.func @dynamic_rows(%a: tensor<?x64xf32>, %w: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %p = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %p : tensor<?x32xf32>
}
