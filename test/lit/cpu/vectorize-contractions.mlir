// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-vectorize-contractions{vector-width=16 rows=8 depth=256}))' | FileCheck %s

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// C += A * B with a run-time number of rows. The columns are cut in chunks
// of 64 (two tiles) and the rows in blocks of 256 (rows known to fit one
// block are not cut, so they stay static), one parallel iteration
// (scf.forall) per (row block, chunk), row block outermost so that a
// thread's consecutive iterations reuse one block of A; each works on its
// own slices of C, A and B and its own panel. At least 16 rows take the
// packed path (k in blocks of 256, a [256, 32] panel per column tile),
// fewer read B's rows in place. Both keep an 8 x 32 tile in registers
// over k.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<?x784xf32>, %[[B:.*]]: tensor<784x512xf32>, %[[C:.*]]: tensor<?x512xf32>)
// CHECK:         %[[M:.*]] = tensor.dim %[[A]]
// CHECK:         %[[CHUNKS:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[M]], %c256
// CHECK:         %[[ITERATIONS:.*]] = arith.muli %[[BLOCKS]], %[[CHUNKS]]
// CHECK:         scf.forall (%[[I:.*]]) in (%[[ITERATIONS]]) shared_outs(%[[OUT:.*]] = %[[C]])
// CHECK:           %[[CHUNK:.*]] = arith.remui %[[I]], %[[CHUNKS]]
// CHECK:           %[[FIRST:.*]] = arith.muli %[[CHUNK]], %c64
// CHECK:           %[[BLOCK:.*]] = arith.divui %[[I]], %[[CHUNKS]]
// CHECK:           %[[ROW:.*]] = arith.muli %[[BLOCK]], %c256
// CHECK:           %[[ROWS:.*]] = arith.minui
// CHECK:           %[[AS:.*]] = tensor.extract_slice %[[A]][%[[ROW]], 0] [%[[ROWS]], 784]
// CHECK:           %[[CS:.*]] = tensor.extract_slice %[[OUT]][%[[ROW]], %[[FIRST]]] [%[[ROWS]], %{{.*}}]
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[B]][0, %[[FIRST]]]
// CHECK:           %[[PANEL:.*]] = tensor.empty() : tensor<256x32xf32>
// CHECK:           %[[ENOUGH:.*]] = arith.cmpi uge, %[[ROWS]], %c16
// CHECK:           scf.if %[[ENOUGH]]
// Packed: blocks of k, column tiles, the panel filled from B's rows.
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[CS]], %{{.*}} = %[[PANEL]])
// CHECK:               arith.minui
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   vector.transfer_read %[[BS]]{{.*}} {in_bounds = [true]} : tensor<784x?xf32>, vector<32xf32>
// CHECK:                   vector.transfer_write {{.*}} {in_bounds = [true]} : vector<32xf32>, tensor<256x32xf32>
// Full tiles of 8 rows: 8 accumulators carried through the k loop.
// CHECK:                 scf.for
// CHECK-COUNT-8:           vector.transfer_read %{{.*}} : tensor<?x?xf32>, vector<32xf32>
// CHECK:                   scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK:                     vector.transfer_read {{.*}} : tensor<256x32xf32>, vector<32xf32>
// CHECK-COUNT-8:             vector.fma
// CHECK:                   vector.transfer_write
// CHECK:           } else {
// Direct: B's rows read in place, k in blocks of 32 rows (784 = 24 x 32
// + 16), column tiles inside each block.
// CHECK:             scf.for %[[KB:.*]] = %{{.*}} to %c784 step %c32
// CHECK:               %[[LEFT:.*]] = arith.subi %c784, %[[KB]]
// CHECK:               %[[KCOUNT:.*]] = arith.minui %c32, %[[LEFT]]
// CHECK:               scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// CHECK:                 scf.for %{{.*}} = %{{.*}} to %[[KCOUNT]] step
// CHECK:                   %[[K:.*]] = arith.addi %[[KB]], %{{.*}}
// CHECK:                   vector.transfer_read %[[BS]][%[[K]], %{{.*}}]
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[ROW]], %[[FIRST]]]
// CHECK-NOT:     linalg.generic
func.func @matmul(%a: tensor<?x784xf32>, %b: tensor<784x512xf32>, %c: tensor<?x512xf32>) -> tensor<?x512xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x784xf32>, tensor<784x512xf32>) outs(%c : tensor<?x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// Gemm with transB. With at least 32 rows (4 row tiles) B is packed: each
// 16 x 16 block of the panel is read as 16 rows of B along k (rows past
// n = 10 are zeros), transposed in registers by 4 stages of shuffles and
// written as 16 panel rows; n = 10 is one masked column tile. With fewer rows (a linear layer at batch 1 or 16,
// where packing the weight would cost more than the product) each output
// is a dot product along k: two rows of A and 8 of B's rows read as
// vectors of one register, each B vector used by both rows, one vector of
// partial sums per output, reduced at the end and added to C's start;
// 512 = 32 x 16, so no masked tail.
// CHECK-LABEL: func.func @matmul_transposed_b
// CHECK:         tensor.extract_slice %{{.*}} : tensor<10x512xf32> to tensor<?x512xf32>
// CHECK:         %[[MANY:.*]] = arith.cmpi uge, %{{.*}}, %c32
// CHECK:         scf.if %[[MANY]]
// CHECK:           scf.for %{{.*}} step %c16
// CHECK-COUNT-16:    vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30]
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31]
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29]
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27]
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
// CHECK-COUNT-16:    vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<256x32xf32>
// CHECK:           tensor.extract %{{.*}} : tensor<?x512xf32>
// CHECK:           tensor.insert %{{.*}} : tensor<256x32xf32>
// CHECK:           vector.transfer_read %{{.*}} : tensor<?x?xf32>, vector<32xf32>
// CHECK-NOT:       in_bounds = [true]} : tensor<?x?xf32>
// CHECK:           vector.fma
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} step %c8
// CHECK:             scf.for %{{.*}} step %c2
// CHECK:               vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?x512xf32>, vector<16xf32>
// CHECK-NEXT:          vector.fma
// CHECK-NEXT:          vector.fma
// CHECK:               vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK:               tensor.extract
// CHECK:               arith.addf
// CHECK:               tensor.insert
// CHECK-NOT:     linalg.generic
func.func @matmul_transposed_b(%a: tensor<?x512xf32>, %b: tensor<10x512xf32>, %c: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x512xf32>, tensor<10x512xf32>) outs(%c : tensor<?x10xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// -----

// A weight gradient summed over batch and sequence: both operands are
// collapsed to [batch * sequence, .] and the product has one reduction.
// CHECK-LABEL: func.func @two_reductions
// CHECK-DAG:     tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x128x64xf32> into tensor<?x64xf32>
// CHECK-DAG:     tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x128x32xf32> into tensor<?x32xf32>
// CHECK:         vector.fma
// CHECK-NOT:     linalg.generic
func.func @two_reductions(%x: tensor<?x128x64xf32>, %dy: tensor<?x128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, b, s) -> (b, s, m)>, affine_map<(m, n, b, s) -> (b, s, n)>, affine_map<(m, n, b, s) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %dy : tensor<?x128x64xf32>, tensor<?x128x32xf32>) outs(%c : tensor<64x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Batched (attention scores): the batch dims become plain loops around the
// 2-D kernel.
// CHECK-LABEL: func.func @batched
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.fma
// CHECK-NOT:     linalg.generic
func.func @batched(%q: tensor<?x4x128x32xf32>, %k: tensor<?x4x32x128xf32>, %c: tensor<?x4x128x128xf32>) -> tensor<?x4x128x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x4x128x32xf32>, tensor<?x4x32x128xf32>) outs(%c : tensor<?x4x128x128xf32>) {
  ^bb0(%p: f32, %r2: f32, %acc: f32):
    %m = arith.mulf %p, %r2 : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x4x128x128xf32>
  return %r : tensor<?x4x128x128xf32>
}

// -----

// An attention head's 32 values are one chunk of columns: the batch entries
// run in parallel instead, each with its own slices of A, B and C.
// CHECK-LABEL: func.func @batched_narrow
// CHECK-SAME:    (%[[P:.*]]: tensor<?x4x128x128xf32>, %[[V:.*]]: tensor<?x4x128x32xf32>, %[[C:.*]]: tensor<?x4x128x32xf32>)
// CHECK:         %[[BATCH:.*]] = tensor.dim %[[P]], %c0
// CHECK:         %[[N:.*]] = arith.ceildivui %[[BATCH]], %c1
// CHECK:         scf.forall (%[[I:.*]]) in (%[[N]]) shared_outs(%[[OUT:.*]] = %[[C]])
// CHECK:           %[[FIRST:.*]] = arith.muli %[[I]], %c1
// CHECK:           tensor.extract_slice %[[OUT]][%[[FIRST]], 0, 0, 0] [%{{.*}}, 4, 128, 32]
// CHECK:           tensor.extract_slice %[[P]][%[[FIRST]], 0, 0, 0]
// CHECK:           tensor.extract_slice %[[V]][%[[FIRST]], 0, 0, 0]
// CHECK:           vector.fma
func.func @batched_narrow(%p: tensor<?x4x128x128xf32>, %v: tensor<?x4x128x32xf32>, %c: tensor<?x4x128x32xf32>) -> tensor<?x4x128x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<?x4x128x128xf32>, tensor<?x4x128x32xf32>) outs(%c : tensor<?x4x128x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x4x128x32xf32>
  return %r : tensor<?x4x128x32xf32>
}

// -----

// C starting as zeros (linalg.fill): the first k block starts its
// accumulators from the splat instead of reading the buffer, later blocks
// read what the earlier ones wrote, and the fill is gone.
// CHECK-LABEL: func.func @zero_init
// CHECK-NOT:     linalg.fill
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<?x512xf32>
// CHECK:         scf.forall {{.*}} shared_outs(%{{.*}} = %[[EMPTY]])
// CHECK:           vector.broadcast %{{.*}} : f32 to vector<32xf32>
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK:           scf.if %[[FIRST]] -> (vector<32xf32>)
// CHECK:           } else {
// CHECK:             vector.transfer_read
// CHECK:           vector.fma
func.func @zero_init(%a: tensor<?x784xf32>, %b: tensor<784x512xf32>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x784xf32>
  %e = tensor.empty(%m) : tensor<?x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x784xf32>, tensor<784x512xf32>) outs(%c : tensor<?x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

// Attention scores with the head transposes fused in: Q and K are read in
// their [b, s, h, d] layout. K's innermost dim is k (d), so it is packed
// element by element; the product is still one kernel.
// CHECK-LABEL: func.func @fused_transposes
// CHECK:         scf.forall
// CHECK:           %[[KS:.*]] = tensor.extract_slice %{{.*}} : tensor<?x128x4x32xf32> to tensor<?x?x4x32xf32>
// CHECK:           tensor.extract %[[KS]]
// CHECK:           tensor.insert %{{.*}} : tensor<256x32xf32>
// CHECK:           tensor.extract %{{.*}} : tensor<?x128x4x32xf32>
// CHECK:           vector.fma
// CHECK-NOT:     linalg.generic
func.func @fused_transposes(%q: tensor<?x128x4x32xf32>, %k: tensor<?x128x4x32xf32>, %c: tensor<?x4x128x128xf32>) -> tensor<?x4x128x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, d) -> (b, m, h, d)>, affine_map<(b, h, m, n, d) -> (b, n, h, d)>, affine_map<(b, h, m, n, d) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x128x4x32xf32>, tensor<?x128x4x32xf32>) outs(%c : tensor<?x4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x4x128x128xf32>
  return %r : tensor<?x4x128x128xf32>
}

// -----

// Not products: a ReLU fused into the product's body, f64, a row sum.
// CHECK-LABEL: func.func @untouched
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     vector.fma
func.func @untouched(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>,
                     %a64: tensor<4x8xf64>, %b64: tensor<8x16xf64>, %c64: tensor<4x16xf64>,
                     %s: tensor<4xf32>) -> (tensor<4x16xf32>, tensor<4x16xf64>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %relu = arith.maximumf %x, %zero : f32
    %p = arith.mulf %relu, %y : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<4x16xf32>
  %r64 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a64, %b64 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%c64 : tensor<4x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %t = arith.addf %acc, %p : f64
    linalg.yield %t : f64
  } -> tensor<4x16xf64>
  %sum = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %acc, %x : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %r, %r64, %sum : tensor<4x16xf32>, tensor<4x16xf64>, tensor<4xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>

// Gemm's bias and the ReLU after it, in the kernel: the accumulators start
// from the bias vector (the broadcast is never stored) and the ReLU runs on
// each finished tile before it is written; only after the last k block
// (k = 784 is four blocks of 256). Nothing is left of the three generics.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME:    (%[[A:.*]]: tensor<?x784xf32>, %[[W:.*]]: tensor<512x784xf32>, %[[BIAS:.*]]: tensor<512xf32>)
// CHECK:         scf.forall
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[BIAS]][%{{.*}}] [%{{.*}}] [1] : tensor<512xf32> to tensor<?xf32>
// CHECK:           vector.transfer_read %[[BS]]{{.*}} : tensor<?xf32>, vector<32xf32>
// CHECK:           vector.fma
// CHECK:           %[[LAST:.*]] = arith.cmpi eq
// CHECK:           scf.if %[[LAST]]
// CHECK-COUNT-8:     arith.maximumf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK:           } else {
// Fewer than 32 rows: dot products; the bias starts each sum and the ReLU
// runs on each finished element.
// CHECK:             vector.reduction <add>
// CHECK:             tensor.extract %[[BS]]
// CHECK:             arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:             tensor.insert
// CHECK-NOT:     linalg.generic
func.func @bias_relu(%a: tensor<?x784xf32>, %w: tensor<512x784xf32>, %bias: tensor<512xf32>) -> tensor<?x512xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<?x784xf32>
  %empty = tensor.empty(%rows) : tensor<?x512xf32>
  %init = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<512xf32>) outs(%empty : tensor<?x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<?x512xf32>
  %p = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<?x784xf32>, tensor<512x784xf32>) outs(%init : tensor<?x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x512xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<?x512xf32>) outs(%empty : tensor<?x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>

// ReluGrad after dX = dY * W: the mask's other input (the forward
// activation) is read at the tile, sliced like C; k = 10 is one block, so
// the epilogue needs no test.
// CHECK-LABEL: func.func @relu_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<?x10xf32>, %[[W:.*]]: tensor<10x512xf32>, %[[Y:.*]]: tensor<?x512xf32>, %[[C:.*]]: tensor<?x512xf32>)
// CHECK:         scf.forall
// CHECK:           %[[YS:.*]] = tensor.extract_slice %[[Y]][%{{.*}}, %{{.*}}]
// CHECK:           vector.fma
// CHECK:           vector.transfer_read %[[YS]]
// CHECK:           arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<32xi1>, vector<32xf32>
// CHECK-NOT:     linalg.generic
func.func @relu_grad(%dy: tensor<?x10xf32>, %w: tensor<10x512xf32>, %y: tensor<?x512xf32>, %c: tensor<?x512xf32>) -> tensor<?x512xf32> {
  %zero = arith.constant 0.0 : f32
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : tensor<?x10xf32>, tensor<10x512xf32>) outs(%c : tensor<?x512xf32>) {
  ^bb0(%x: f32, %v: f32, %acc: f32):
    %m = arith.mulf %x, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x512xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %p : tensor<?x512xf32>, tensor<?x512xf32>) outs(%c : tensor<?x512xf32>) {
  ^bb0(%act: f32, %g: f32, %o: f32):
    %positive = arith.cmpf ogt, %act, %zero : f32
    %masked = arith.select %positive, %g, %zero : f32
    linalg.yield %masked : f32
  } -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

#a = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>

// Gradient accumulation after a weight gradient reads a flag computed
// between the two: it stays its own generic (odt-fuse-gradient-accumulation
// handles it on buffers), and the product is still vectorized.
// CHECK-LABEL: func.func @accumulation_stays
// CHECK:         vector.fma
// CHECK:         tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi1>
// CHECK:         linalg.generic
// CHECK:           arith.select
func.func @accumulation_stays(%x: tensor<?x128xf32>, %dy: tensor<?x64xf32>, %buffer: tensor<128x64xf32>, %reset: tensor<1xi1>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %empty = tensor.empty() : tensor<128x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x64xf32>) -> tensor<128x64xf32>
  %g = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<?x128xf32>, tensor<?x64xf32>) outs(%fill : tensor<128x64xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<128x64xf32>
  %flag = tensor.extract %reset[%c0] : tensor<1xi1>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%buffer, %g : tensor<128x64xf32>, tensor<128x64xf32>) outs(%empty : tensor<128x64xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %chosen = arith.select %flag, %new, %sum : f32
    linalg.yield %chosen : f32
  } -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}

// -----

#x = affine_map<(b, s, n, k) -> (b, s, k)>
#wt = affine_map<(b, s, n, k) -> (n, k)>
#y = affine_map<(b, s, n, k) -> (b, s, n)>
#row = affine_map<(b, s, n) -> (n)>
#id = affine_map<(b, s, n) -> (b, s, n)>

// A linear layer on [batch, sequence, features]: batch and sequence are
// collapsed into one row dim of A and C (B does not use them), so one
// product of batch x 128 rows packs each panel of the transposed weight
// once instead of once per batch entry; its bias broadcast is rebuilt on
// the collapsed shape (still the accumulators' start), and the result is
// expanded back.
// CHECK-LABEL: func.func @rows_over_batch
// CHECK-SAME:    (%[[X:.*]]: tensor<?x128x128xf32>, %[[W:.*]]: tensor<512x128xf32>, %[[BIAS:.*]]: tensor<512xf32>)
// CHECK:         %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x128x128xf32> into tensor<?x128xf32>
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %[[BIAS]]
// CHECK:           scf.for
// CHECK:             vector.fma
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 128, 512] : tensor<?x512xf32> into tensor<?x128x512xf32>
// CHECK-NOT:     linalg.generic
func.func @rows_over_batch(%x: tensor<?x128x128xf32>, %w: tensor<512x128xf32>, %bias: tensor<512xf32>) -> tensor<?x128x512xf32> {
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %x, %c0 : tensor<?x128x128xf32>
  %empty = tensor.empty(%batch) : tensor<?x128x512xf32>
  %init = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias : tensor<512xf32>) outs(%empty : tensor<?x128x512xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x128x512xf32>
  %y = linalg.generic {indexing_maps = [#x, #wt, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x128x128xf32>, tensor<512x128xf32>) outs(%init : tensor<?x128x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x128x512xf32>
  return %y : tensor<?x128x512xf32>
}

// -----

#x = affine_map<(b, s, n, k) -> (b, s, k)>
#wt = affine_map<(b, s, n, k) -> (n, k)>
#y = affine_map<(b, s, n, k) -> (b, s, n)>
#row = affine_map<(b, s, n) -> (n)>
#id = affine_map<(b, s, n) -> (b, s, n)>

// A linear layer's MatMul on [batch, sequence, features] followed by its
// bias Add and a residual Add (one generic after elementwise fusion), its
// sizes read by tensor.dim: the generic is rebuilt on the collapsed rows
// (the residual collapsed where it is defined, the bias still a row along
// n) and runs in the kernel's epilogue, after the sum as the Add did. No
// generic and no store of the bare product remain.
// CHECK-LABEL: func.func @bias_and_residual_after_product
// CHECK-SAME:    (%[[X:.*]]: tensor<?x128x128xf32>, %[[W:.*]]: tensor<512x128xf32>, %[[BIAS:.*]]: tensor<512xf32>, %[[RES:.*]]: tensor<?x128x512xf32>)
// CHECK:         %[[RC:.*]] = tensor.collapse_shape %[[RES]] {{\[\[}}0, 1], [2]] : tensor<?x128x512xf32> into tensor<?x512xf32>
// CHECK:         scf.forall
// CHECK-DAG:       %[[BS:.*]] = tensor.extract_slice %[[BIAS]][
// CHECK-DAG:       %[[RS:.*]] = tensor.extract_slice %[[RC]][
// CHECK:           vector.fma
// CHECK:           vector.transfer_read %[[BS]][%{{.*}}]{{.*}} : tensor<?xf32>, vector<16xf32>
// CHECK:           vector.transfer_read %[[RS]][%{{.*}}, %{{.*}}]{{.*}} : tensor<?x?xf32>, vector<16xf32>
// CHECK:           arith.addf %{{.*}} : vector<16xf32>
// CHECK:           arith.addf %{{.*}} : vector<16xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 128, 512] : tensor<?x512xf32> into tensor<?x128x512xf32>
// CHECK-NOT:     linalg.generic
func.func @bias_and_residual_after_product(%x: tensor<?x128x128xf32>, %w: tensor<512x128xf32>, %bias: tensor<512xf32>, %res: tensor<?x128x512xf32>) -> tensor<?x128x512xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %batch = tensor.dim %x, %c0 : tensor<?x128x128xf32>
  %empty = tensor.empty(%batch) : tensor<?x128x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x128x512xf32>) -> tensor<?x128x512xf32>
  %y = linalg.generic {indexing_maps = [#x, #wt, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x128x128xf32>, tensor<512x128xf32>) outs(%init : tensor<?x128x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x128x512xf32>
  %rows = tensor.dim %y, %c0 : tensor<?x128x512xf32>
  %out = tensor.empty(%rows) : tensor<?x128x512xf32>
  %z = linalg.generic {indexing_maps = [#row, #id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias, %y, %res : tensor<512xf32>, tensor<?x128x512xf32>, tensor<?x128x512xf32>) outs(%out : tensor<?x128x512xf32>) {
  ^bb0(%v: f32, %p: f32, %r: f32, %o: f32):
    %sum = arith.addf %v, %p : f32
    %total = arith.addf %sum, %r : f32
    linalg.yield %total : f32
  } -> tensor<?x128x512xf32>
  return %z : tensor<?x128x512xf32>
}

// -----

#qa = affine_map<(b, m, n, k) -> (b, m, k)>
#kb = affine_map<(b, m, n, k) -> (b, k, n)>
#sc = affine_map<(b, m, n, k) -> (b, m, n)>
#id4 = affine_map<(b, h, m, n) -> (b, h, m, n)>

// Attention scores with a causal mask: the consumer of the expanded
// [batch, heads, queries, keys] product compares its own indices
// (linalg.index 2 and 3). Its body is not elementwise arith on its inputs,
// so it is neither fused nor rebuilt on the collapsed rows (where dims 2
// and 3 would not exist); it stays as it is, on the expanded product.
// CHECK-LABEL: func.func @causal_mask_after_product
// CHECK:         scf.forall
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]]
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : tensor<?x4x10x10xf32>)
// CHECK:           linalg.index 2
// CHECK:           linalg.index 3
func.func @causal_mask_after_product(%q: tensor<?x10x8xf32>, %k: tensor<?x8x10xf32>, %batch: index) -> tensor<?x4x10x10xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %masked = arith.constant -1.0e+30 : f32
  %heads = tensor.dim %q, %c0 : tensor<?x10x8xf32>
  %empty = tensor.empty(%heads) : tensor<?x10x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x10x10xf32>) -> tensor<?x10x10xf32>
  %s = linalg.generic {indexing_maps = [#qa, #kb, #sc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x10x8xf32>, tensor<?x8x10xf32>) outs(%init : tensor<?x10x10xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %m : f32
    linalg.yield %sum : f32
  } -> tensor<?x10x10xf32>
  %e = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [%batch, 4, 10, 10] : tensor<?x10x10xf32> into tensor<?x4x10x10xf32>
  %rows = tensor.dim %e, %c0 : tensor<?x4x10x10xf32>
  %out = tensor.empty(%rows) : tensor<?x4x10x10xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e : tensor<?x4x10x10xf32>) outs(%out : tensor<?x4x10x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %future = arith.cmpi sgt, %j, %i : index
    %add = arith.select %future, %masked, %zero : f32
    %x = arith.addf %v, %add : f32
    linalg.yield %x : f32
  } -> tensor<?x4x10x10xf32>
  return %r : tensor<?x4x10x10xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A product nothing reads (left for dead-code elimination) is vectorized
// without an epilogue.
// CHECK-LABEL: func.func @unused_product
// CHECK:         vector.fma
// CHECK-NOT:     linalg.generic
func.func @unused_product(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>) outs(%c : tensor<?x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %c : tensor<?x64xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// B is a parameter of the entry point: its panels are kept between steps.
// Two arguments are added (the panels, [column tiles, k, 32], and a stale
// flag) and returned updated, tied to them. When the product will take the
// packed path (at least 32 rows with B transposed) and the flag is set,
// every panel is packed into the cache, in parallel over column tiles, and
// the flag cleared; the kernel reads its panels from the cache.
// CHECK-LABEL: func.func @panel_cache
// CHECK-SAME:    %[[W:.*]]: tensor<37x300xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter"
// CHECK-SAME:    %[[PANELS:.*]]: tensor<2x300x32xf32> {odt.name = "w.panels_t_32", odt.param = 0 : i64, odt.role = "packed_panels", onnx.dims = [2, 300, 32]}
// CHECK-SAME:    %[[STALE:.*]]: tensor<1xi1> {odt.name = "w.panels_t_32.stale", odt.param = 0 : i64, odt.role = "panels_stale", onnx.dims = [1]}
// CHECK-SAME:    -> (tensor<?x37xf32> {odt.name = "y"
// CHECK-SAME:        tensor<2x300x32xf32> {odt.name = "w.panels_t_32", odt.param = 0 : i64, odt.role = "packed_panels", odt.tied = 2 : i64
// CHECK-SAME:        tensor<1xi1> {odt.name = "w.panels_t_32.stale", odt.param = 0 : i64, odt.role = "panels_stale", odt.tied = 3 : i64
// CHECK:         %[[ENOUGH:.*]] = arith.cmpi uge, %{{.*}}, %c32
// CHECK:         %[[FLAG:.*]] = tensor.extract %[[STALE]]
// CHECK:         %[[FILL:.*]] = arith.andi %[[ENOUGH]], %[[FLAG]]
// CHECK:         %[[CACHE:.*]]:2 = scf.if %[[FILL]] -> (tensor<2x300x32xf32>, tensor<1xi1>)
// CHECK:           scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %[[PANELS]])
// CHECK:             vector.shuffle
// CHECK:           tensor.insert %false into %[[STALE]]
// CHECK:         } else {
// CHECK:           scf.yield %[[PANELS]], %[[STALE]]
// CHECK:         %[[Y:.*]] = scf.forall
// CHECK:           tensor.extract_slice %[[CACHE]]#0[%{{.*}}, %{{.*}}, 0] [1, %{{.*}}, 32] [1, 1, 1] : tensor<2x300x32xf32> to tensor<?x32xf32>
// CHECK:           vector.fma
// CHECK:         return %[[Y]], %[[CACHE]]#0, %[[CACHE]]#1
func.func @panel_cache(%x: tensor<?x300xf32> {odt.name = "x", odt.role = "user_input", onnx.dims = ["batch", 300]},
                       %w: tensor<37x300xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter", onnx.dims = [37, 300]})
    -> (tensor<?x37xf32> {odt.name = "y", odt.role = "user_output", onnx.dims = ["batch", 37]}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x300xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x37xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x37xf32>) -> tensor<?x37xf32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x300xf32>, tensor<37x300xf32>) outs(%f : tensor<?x37xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x37xf32>
  return %r : tensor<?x37xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A kept weight with rows along n (a hidden layer's dX = dY W) is packed
// from 3 row tiles (24 rows) on: with fewer, its panels (refilled after
// every optimizer step) cost more than reading it in place.
// CHECK-LABEL: func.func @panel_cache_rows
// CHECK-SAME:    tensor<16x512x32xf32> {odt.name = "w.panels_32"
// CHECK:         arith.cmpi uge, %{{.*}}, %c24
// CHECK:         scf.forall
// CHECK:           arith.cmpi uge, %{{.*}}, %c24
func.func @panel_cache_rows(%dy: tensor<?x512xf32> {odt.name = "dy", odt.role = "user_input", onnx.dims = ["batch", 512]},
                            %w: tensor<512x512xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter", onnx.dims = [512, 512]},
                            %c: tensor<?x512xf32> {odt.name = "c", odt.role = "user_input", onnx.dims = ["batch", 512]})
    -> (tensor<?x512xf32> {odt.name = "dx", odt.role = "user_output", onnx.dims = ["batch", 512]}) {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : tensor<?x512xf32>, tensor<512x512xf32>) outs(%c : tensor<?x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// B is a weight transposed by linalg.transpose (MatMul by W^T, as the
// transformer's layers are exported): the product reads the weight itself
// with B's map swapped (a transposed B), so no copy is made per step and
// the weight's panels are kept; the transpose goes with its last reader.
// CHECK-LABEL: func.func @transposed_weight
// CHECK-SAME:    tensor<4x128x32xf32> {odt.name = "w.panels_t_32"
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.if
// CHECK:           vector.shuffle
// CHECK:         vector.fma
// CHECK-NOT:     linalg.generic
func.func @transposed_weight(%x: tensor<?x128xf32> {odt.name = "x", odt.role = "user_input", onnx.dims = ["batch", 128]},
                             %w: tensor<128x128xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter", onnx.dims = [128, 128]},
                             %c: tensor<?x128xf32> {odt.name = "c", odt.role = "user_input", onnx.dims = ["batch", 128]})
    -> (tensor<?x128xf32> {odt.name = "y", odt.role = "user_output", onnx.dims = ["batch", 128]}) {
  %e = tensor.empty() : tensor<128x128xf32>
  %wt = linalg.transpose ins(%w : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<?x128xf32>, tensor<128x128xf32>) outs(%c : tensor<?x128xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  return %r : tensor<?x128xf32>
}

// -----

// B already laid out as panels of the tile's 32 columns ([panels, k, 32]:
// a convolution's image panels), panels_in_place: the row tiles read B's
// rows where they are; nothing is packed.
#a = affine_map<(t, m, n, k) -> (m, k)>
#b = affine_map<(t, m, n, k) -> (t, k, n)>
#c = affine_map<(t, m, n, k) -> (m, t, n)>
// CHECK-LABEL: func.func @panels_in_place
// CHECK-SAME:    %[[A:.*]]: tensor<16x27xf32>, %[[B:.*]]: tensor<2x27x32xf32>
// CHECK:         %[[MINE:.*]] = tensor.extract_slice %[[B]]
// CHECK-NOT:     vector.transfer_write {{.*}} tensor<256x32xf32>
// CHECK:         vector.transfer_read %[[MINE]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<?x27x32xf32>, vector<32xf32>
// CHECK:         vector.fma
// CHECK-NOT:     vector.transfer_write {{.*}} tensor<256x32xf32>
func.func @panels_in_place(%a: tensor<16x27xf32>, %b: tensor<2x27x32xf32>, %c: tensor<16x2x32xf32>) -> tensor<16x2x32xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x27xf32>, tensor<2x27x32xf32>) outs(%c : tensor<16x2x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "packed"}], panels_in_place, tile = array<i64: 8, 32>}} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2x32xf32>
  return %r : tensor<16x2x32xf32>
}
