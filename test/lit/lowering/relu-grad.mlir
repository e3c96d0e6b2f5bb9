// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.ms.ReluGrad: dX = X > 0 ? dY : 0, one elementwise linalg.generic
// over dY and X, sized like X.

// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @relu_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<?x500xf32>, %[[X:.*]]: tensor<?x500xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x500xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x500xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[DX:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[DY]], %[[X]] : tensor<?x500xf32>, tensor<?x500xf32>) outs(%[[EMPTY]] : tensor<?x500xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: f32, %[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[POS:.*]] = arith.cmpf ogt, %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[POS]], %[[G]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[SEL]] : f32
// CHECK:         return %[[DX]] : tensor<?x500xf32>
func.func @relu_grad(%dy: tensor<?x500xf32>, %x: tensor<?x500xf32>) -> tensor<?x500xf32> {
  %0 = onnx.ms.ReluGrad(%dy, %x) : (tensor<?x500xf32>, tensor<?x500xf32>) -> tensor<?x500xf32>
  return %0 : tensor<?x500xf32>
}
