// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.ms.InPlaceAccumulatorV2: out = overwrite_flag ? value : buffer + value
// in one elementwise pass into a fresh tensor shaped like the buffer (the
// destination-passing boundary later makes the buffer itself its home); the
// updated flag is the constant true.

// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @overwrite_flag
// CHECK-SAME:    (%[[BUF:.*]]: tensor<10x500xf32>, %[[V:.*]]: tensor<10x500xf32>, %[[FLAG:.*]]: tensor<1xi1>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[OVERWRITE:.*]] = tensor.extract %[[FLAG]][%[[C0]]] : tensor<1xi1>
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<10x500xf32>
// CHECK:         %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[BUF]], %[[V]] : tensor<10x500xf32>, tensor<10x500xf32>) outs(%[[EMPTY]] : tensor<10x500xf32>)
// CHECK-NEXT:    ^bb0(%[[B:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[B]], %[[X]] : f32
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[OVERWRITE]], %[[X]], %[[SUM]] : f32
// CHECK-NEXT:      linalg.yield %[[SEL]] : f32
// CHECK:         %[[TRUE:.*]] = arith.constant dense<true> : tensor<1xi1>
// CHECK:         return %[[TRUE]], %[[OUT]] : tensor<1xi1>, tensor<10x500xf32>
func.func @overwrite_flag(%buf: tensor<10x500xf32>, %v: tensor<10x500xf32>, %flag: tensor<1xi1>)
    -> (tensor<1xi1>, tensor<10x500xf32>) {
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %flag)
      : (tensor<10x500xf32>, tensor<10x500xf32>, tensor<1xi1>) -> (tensor<1xi1>, tensor<10x500xf32>)
  return %0#0, %0#1 : tensor<1xi1>, tensor<10x500xf32>
}

// -----

// Without a flag the update always accumulates.
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @no_flag
// CHECK-SAME:    (%[[BUF:.*]]: tensor<?xf32>, %[[V:.*]]: tensor<?xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[BUF]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK:         %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[BUF]], %[[V]] : tensor<?xf32>, tensor<?xf32>) outs(%[[EMPTY]] : tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[B:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[B]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// CHECK:         return %[[OUT]] : tensor<?xf32>
func.func @no_flag(%buf: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xf32> {
  %none = onnx.NoValue
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %none)
      : (tensor<?xf32>, tensor<?xf32>, none) -> (tensor<1xi1>, tensor<?xf32>)
  return %0#1 : tensor<?xf32>
}
