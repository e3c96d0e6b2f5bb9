// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.ms.SGDOptimizerV2: w - lr * g, one elementwise linalg.generic per
// parameter; the completion flag is the constant true.

// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sgd
// CHECK-SAME:    (%[[LR:[^:]*]]: tensor<1xf32>, %[[W0:[^:]*]]: tensor<4x3xf32>, %[[W1:[^:]*]]: tensor<4xf32>, %[[G0:[^:]*]]: tensor<4x3xf32>, %[[G1:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[LRS:.*]] = tensor.extract %[[LR]][%{{.*}}] : tensor<1xf32>
// CHECK:         %[[TRUE:.*]] = arith.constant dense<true> : tensor<1xi1>
// CHECK:         %[[NEW0:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[W0]], %[[G0]] : tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[W:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[STEP:.*]] = arith.mulf %[[LRS]], %[[G]] : f32
// CHECK-NEXT:      %[[NEW:.*]] = arith.subf %[[W]], %[[STEP]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]] : f32
// CHECK:         %[[NEW1:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[W1]], %[[G1]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:         return %[[TRUE]], %[[NEW0]], %[[NEW1]] : tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>
func.func @sgd(%lr: tensor<1xf32>, %w0: tensor<4x3xf32>, %w1: tensor<4xf32>, %g0: tensor<4x3xf32>, %g1: tensor<4xf32>)
    -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>) {
  %0:3 = onnx.ms.SGDOptimizerV2(%lr, %w0, %w1, %g0, %g1)
      : (tensor<1xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>) -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>
}
