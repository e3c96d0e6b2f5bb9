// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.Relu: one elementwise linalg.generic, max(x, 0) with NaN propagation
// (arith.maximumf), into a tensor.empty sized like the input.

// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[X:.*]]: tensor<?x500xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x500xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x500xf32>
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x500xf32>) outs(%[[EMPTY]] : tensor<?x500xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[MAX]] : f32
// CHECK:         return %[[Y]] : tensor<?x500xf32>
func.func @relu(%x: tensor<?x500xf32>) -> tensor<?x500xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x500xf32>) -> tensor<?x500xf32>
  return %0 : tensor<?x500xf32>
}

// -----

// Other float types and ranks keep their element type; a 0-d tensor gets a
// loop nest of no dims.
// CHECK-DAG:   #[[$SCALAR:.*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @relu_f64_scalar
// CHECK:         linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]]], iterator_types = []}
// CHECK-SAME:        ins(%{{.*}} : tensor<f64>) outs(%{{.*}} : tensor<f64>)
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:           arith.maximumf %{{.*}}, %[[ZERO]] : f64
func.func @relu_f64_scalar(%x: tensor<f64>) -> tensor<f64> {
  %0 = onnx.Relu(%x) : (tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
