// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-parallel-dims-outermost))' | FileCheck %s

// A bias gradient sums over rows (d0 reduces): its loops become (d1, d0),
// so convert-linalg-to-parallel-loops makes one parallel loop over the
// columns with the row sum inside, not a host loop of launches.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[COL]]], iterator_types = ["parallel", "reduction"]}
func.func @column_sum(%x: memref<?x128xf32>, %sum: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<?x128xf32>) outs(%sum : memref<128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Already parallel first (a row sum): unchanged.
// CHECK-LABEL: func.func @row_sum
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : memref<?x128xf32>)
func.func @row_sum(%x: memref<?x128xf32>, %sum: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x128xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Named ops with reductions become generics (odt-gpu-accumulate-in-
// registers takes generics only): a convolution's output element is then
// summed in a register, not loaded and stored at every term. Named ops
// without reductions (a fill) stay.
// CHECK-LABEL: func.func @named_convolution
// CHECK:         linalg.fill
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @named_convolution(%x: memref<?x16x8x8xf32>, %w: memref<16x16x3x3xf32>,
                             %y: memref<?x16x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x16x6x6xf32>)
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<?x16x8x8xf32>, memref<16x16x3x3xf32>)
                           outs(%y : memref<?x16x6x6xf32>)
  return
}
