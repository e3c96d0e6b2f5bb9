// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-vectorize-contractions{vector-width=16 rows=8 depth=256}),canonicalize)' | FileCheck %s

// A weight gradient over a batch of 16 (dW = dY^T X, k = 16): writing C
// costs more than the 16 multiply-adds per element, so the parallel
// iterations are blocks of 64 whole rows of C (512 / 64 = 8), each written
// row after row: column tiles of 32 outer (784 = 24.5 tiles, the last
// masked), tiles of 8 rows inner, X read in place (no panel).
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @weight_gradient_batch_16
// CHECK-NOT:     tensor<256x32xf32>
// CHECK:         scf.forall (%[[I:.*]]) in (8)
// CHECK:           %[[FIRST:.*]] = arith.muli %[[I]], %c64
// CHECK:           tensor.extract_slice %{{.*}}[%[[FIRST]], 0] [%{{.*}}, 784] [1, 1] : tensor<512x784xf32> to tensor<?x784xf32>
// CHECK:           scf.for %{{.*}} = %c0 to %c784 step %c32
// CHECK:             scf.for %{{.*}} = %c0 to %{{.*}} step %c8
// CHECK:               scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:                 vector.transfer_read %{{.*}} : tensor<16x784xf32>, vector<32xf32>
// CHECK-COUNT-8:         vector.fma
func.func @weight_gradient_batch_16(%dy: tensor<16x512xf32>, %x: tensor<16x784xf32>) -> tensor<512x784xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x784xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x784xf32>) -> tensor<512x784xf32>
  %p = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : tensor<16x512xf32>, tensor<16x784xf32>) outs(%init : tensor<512x784xf32>) {
  ^bb0(%a: f32, %v: f32, %acc: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x784xf32>
  return %p : tensor<512x784xf32>
}

// -----

// The batch known only at run time: k <= 32 chooses, in the one loop
// nest, chunks of all 800 columns (784 rounded up to whole tiles) instead
// of 64, rows in blocks of 64 instead of 256, and X in place instead of
// packed panels (which more rows would otherwise take).
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @weight_gradient_any_batch
// CHECK:         %[[K:.*]] = tensor.dim
// CHECK:         %[[SHORT:.*]] = arith.cmpi ule, %[[K]], %c32
// CHECK:         arith.select %[[SHORT]], %c800, %c64
// CHECK:         arith.select %[[SHORT]], %c64, %c256
// CHECK:         scf.forall
// CHECK:           %[[ROWS_ENOUGH:.*]] = arith.cmpi uge, %{{.*}}, %c16
// CHECK:           %[[LONG:.*]] = arith.cmpi ugt, %[[K]], %c32
// CHECK:           %[[PACK:.*]] = arith.andi %[[ROWS_ENOUGH]], %[[LONG]]
// CHECK:           scf.if %[[PACK]]
// CHECK:             tensor<256x32xf32>
// CHECK:           } else {
// CHECK:             vector.transfer_read %{{.*}} : tensor<?x?xf32>, vector<32xf32>
// CHECK:             vector.fma
func.func @weight_gradient_any_batch(%dy: tensor<?x512xf32>, %x: tensor<?x784xf32>) -> tensor<512x784xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x784xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x784xf32>) -> tensor<512x784xf32>
  %p = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : tensor<?x512xf32>, tensor<?x784xf32>) outs(%init : tensor<512x784xf32>) {
  ^bb0(%a: f32, %v: f32, %acc: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x784xf32>
  return %p : tensor<512x784xf32>
}

// -----

// Fewer than 256 rows (a 10-class layer's gradient) keep the chunks of
// columns: 8 row blocks would not exist to share among threads.
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @few_rows
// CHECK-NOT:     arith.cmpi ule
// CHECK:         scf.forall (%{{.*}}) in (8)
// CHECK:           arith.muli %{{.*}}, %c64
func.func @few_rows(%dy: tensor<?x10xf32>, %h: tensor<?x512xf32>, %c: tensor<10x512xf32>) -> tensor<10x512xf32> {
  %p = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %h : tensor<?x10xf32>, tensor<?x512xf32>) outs(%c : tensor<10x512xf32>) {
  ^bb0(%a: f32, %v: f32, %acc: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<10x512xf32>
  return %p : tensor<10x512xf32>
}
