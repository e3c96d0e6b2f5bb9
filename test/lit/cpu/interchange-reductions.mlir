// RUN: odt-opt %s --split-input-file --odt-interchange-reductions | FileCheck %s

// matmul (i, j, k) becomes (i, k, j): the reduction moves outside the loop
// along the output's rows.
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @matmul(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}

// -----

// A row reduction (one parallel loop) and an elementwise op stay as they are.
// CHECK-LABEL: func.func @untouched
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "parallel"]
func.func @untouched(%x: memref<4x8xf32>, %s: memref<4xf32>, %y: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A max and its position (MaxPool with indices): two outputs laid out
// alike, so the window loop moves outside the output's rows too; outputs
// laid out differently leave the op as it is.
// CHECK-LABEL: func.func @max_with_position
// CHECK:         iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
func.func @max_with_position(%x: memref<4x2x8xf32>, %m: memref<4x8xf32>, %i: memref<4x8xi64>,
                             %t: memref<8x4xi64>) {
  linalg.generic {indexing_maps = [affine_map<(r, c, k) -> (r, k, c)>, affine_map<(r, c, k) -> (r, c)>,
                                   affine_map<(r, c, k) -> (r, c)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<4x2x8xf32>) outs(%m, %i : memref<4x8xf32>, memref<4x8xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %k = linalg.index 2 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %gt, %in, %best : f32
    %p = arith.select %gt, %ki, %at : i64
    linalg.yield %v, %p : f32, i64
  }
  linalg.generic {indexing_maps = [affine_map<(r, c, k) -> (r, k, c)>, affine_map<(r, c, k) -> (r, c)>,
                                   affine_map<(r, c, k) -> (c, r)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<4x2x8xf32>) outs(%m, %t : memref<4x8xf32>, memref<8x4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %k = linalg.index 2 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %gt, %in, %best : f32
    %p = arith.select %gt, %ki, %at : i64
    linalg.yield %v, %p : f32, i64
  }
  return
}

// -----

#rows = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#sums = affine_map<(d0, d1, d2) -> (d0, d1)>

// Reductions along rows (softmax's backward sum of dP * P over the last,
// contiguous dim): not interchanged, which would read both inputs down
// their columns; the sum is marked reassociable so LLVM vectorizes the row.
// A max is marked the same way.
// CHECK-LABEL: func.func @row_sums
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @row_sums(%dp: memref<4x128x128xf32>, %p: memref<4x128x128xf32>,
                    %out: memref<4x128xf32>, %max: memref<4x128xf32>) {
  linalg.generic {indexing_maps = [#rows, #rows, #sums], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dp, %p : memref<4x128x128xf32>, memref<4x128x128xf32>) outs(%out : memref<4x128xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #sums], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dp : memref<4x128x128xf32>) outs(%max : memref<4x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#rows = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#sums = affine_map<(d0, d1, d2) -> (d0, d1)>
#row = affine_map<(d0, d1, d2) -> (d0, d2)>

// One input reads the reduced dim down a column (not innermost): the
// interchange applies as before, and nothing is marked.
// CHECK-LABEL: func.func @column_read
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-NOT:       fastmath
func.func @column_read(%x: memref<4x128x64xf32>, %y: memref<4x128xf32>, %out: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [#rows, #row, #sums], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<4x128x64xf32>, memref<4x128xf32>) outs(%out : memref<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A depthwise convolution (linalg's loops n, oh, ow, c, kh, kw): the
// output's innermost dim ow is not the last parallel loop; it moves
// innermost, the other parallel loops keep their order outside the window.
// CHECK-DAG:   #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1 + d3, d4 + d5)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1, d5)>
// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.generic {indexing_maps = [#[[$X]], #{{.*}}, #[[$Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
func.func @depthwise(%x: memref<2x3x10x10xf32>, %w: memref<3x3x3xf32>, %y: memref<2x3x8x8xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<2x3x10x10xf32>, memref<3x3x3xf32>) outs(%y : memref<2x3x8x8xf32>)
  return
}

// -----

// A filter gradient's sum along an image row read at `o + k` (the row, 16
// long, is longer than the window loop k that shares the index): a row
// sum, made reassociable and not interchanged. A pooling window (the last
// loop k, 3 long, shorter than the row o beside it) is interchanged.
// CHECK-LABEL: func.func @row_or_window
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         iterator_types = ["parallel", "reduction", "parallel"]
func.func @row_or_window(%dy: memref<4x16xf32>, %x: memref<4x18xf32>, %dw: memref<4x3xf32>,
                         %window: memref<3xf32>, %y: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, k, o) -> (c, o)>, affine_map<(c, k, o) -> (c, o + k)>,
                                   affine_map<(c, k, o) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<4x16xf32>, memref<4x18xf32>) outs(%dw : memref<4x3xf32>) {
  ^bb0(%g: f32, %in: f32, %acc: f32):
    %0 = arith.mulf %g, %in : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(c, o, k) -> (c, o + k)>, affine_map<(c, o, k) -> (k)>,
                                   affine_map<(c, o, k) -> (c, o)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %window : memref<4x18xf32>, memref<3xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}
