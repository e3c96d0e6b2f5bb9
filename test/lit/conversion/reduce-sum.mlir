// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.ReduceSum: one linalg.generic whose reduced dims are reduction
// iterators and are dropped from the output map, accumulating into a zero
// fill; keepdims = 1 re-inserts the unit dims with tensor.expand_shape.

// keepdims = 0 over the batch (ORT's bias gradient).
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$KEEP1:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_batch
// CHECK-SAME:    (%[[X:.*]]: tensor<?x10xf32>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<10xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<10xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$KEEP1]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x10xf32>) outs(%[[FILL]] : tensor<10xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[ADD]] : f32
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[SUM]] : tensor<10xf32>
func.func @reduce_batch(%x: tensor<?x10xf32>) -> tensor<10xf32> {
  %axes = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceSum(%x, %axes) {keepdims = 0 : i64} : (tensor<?x10xf32>, tensor<1xi64>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// keepdims = 1 (the default) with a negative axis: the kept dim absorbs the
// unit dims around it.
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[$MID:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_keepdims
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$MID]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME:        ins(%{{.*}} : tensor<?x10x3xf32>) outs(%{{.*}} : tensor<10xf32>)
// CHECK:         %[[EXP:.*]] = tensor.expand_shape %[[SUM]] {{\[}}[0, 1, 2]] output_shape [1, 10, 1] : tensor<10xf32> into tensor<1x10x1xf32>
// CHECK:         return %[[EXP]] : tensor<1x10x1xf32>
func.func @reduce_keepdims(%x: tensor<?x10x3xf32>) -> tensor<1x10x1xf32> {
  %axes = onnx.Constant {value = dense<[0, -1]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<?x10x3xf32>, tensor<2xi64>) -> tensor<1x10x1xf32>
  return %0 : tensor<1x10x1xf32>
}

// -----

// Absent axes reduce every dim into a 0-d accumulator; keepdims = 1 expands
// it to [1, 1].
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$ALL:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @reduce_all_keepdims
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME:        outs(%[[FILL]] : tensor<f32>)
// CHECK:         %[[EXP:.*]] = tensor.expand_shape %[[SUM]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK:         return %[[EXP]]
func.func @reduce_all_keepdims(%x: tensor<?x10xf32>) -> tensor<1x1xf32> {
  %none = onnx.NoValue
  %0 = onnx.ReduceSum(%x, %none) : (tensor<?x10xf32>, none) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// Absent axes with keepdims = 0 give a 0-d result.
// CHECK-LABEL: func.func @reduce_all
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]
// CHECK:         } -> tensor<f32>
// CHECK-NEXT:    return %[[SUM]] : tensor<f32>
func.func @reduce_all(%x: tensor<?x10xf32>) -> tensor<f32> {
  %none = onnx.NoValue
  %0 = onnx.ReduceSum(%x, %none) {keepdims = 0 : i64} : (tensor<?x10xf32>, none) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// noop_with_empty_axes with no axes is the identity.
// CHECK-LABEL: func.func @reduce_noop
// CHECK-SAME:    (%[[X:.*]]: tensor<?x10xf32>)
// CHECK-NOT:     linalg
// CHECK:         return %[[X]] : tensor<?x10xf32>
func.func @reduce_noop(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %none = onnx.NoValue
  %0 = onnx.ReduceSum(%x, %none) {noop_with_empty_axes = 1 : i64} : (tensor<?x10xf32>, none) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}
