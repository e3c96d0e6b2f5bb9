// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-fuse-decomposed-ops))' | FileCheck %s

// PyTorch's LayerNorm before opset 17, as it exports it.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<?x6x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[Y:.*]], %{{.*}}, %{{.*}} = onnx.LayerNormalization(%[[X]], %[[W]], %[[B]]) {axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NOT:     onnx.ReduceMean
// CHECK-NOT:     onnx.Sqrt
// CHECK:         return %[[Y]]
func.func @layer_norm(%x: tensor<?x6x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x6x8xf32> {
  %none = onnx.NoValue
  %two = onnx.Constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %eps = onnx.Constant {value = dense<1.0E-3> : tensor<f32>} : tensor<f32>
  %m = onnx.ReduceMean(%x, %none) {axes = array<i64: -1>} : (tensor<?x6x8xf32>, none) -> tensor<?x6x1xf32>
  %d = onnx.Sub(%x, %m) : (tensor<?x6x8xf32>, tensor<?x6x1xf32>) -> tensor<?x6x8xf32>
  %p = onnx.Pow(%d, %two) : (tensor<?x6x8xf32>, tensor<f32>) -> tensor<?x6x8xf32>
  %v = onnx.ReduceMean(%p, %none) {axes = array<i64: -1>} : (tensor<?x6x8xf32>, none) -> tensor<?x6x1xf32>
  %a = onnx.Add(%v, %eps) : (tensor<?x6x1xf32>, tensor<f32>) -> tensor<?x6x1xf32>
  %s = onnx.Sqrt(%a) : (tensor<?x6x1xf32>) -> tensor<?x6x1xf32>
  %n = onnx.Div(%d, %s) : (tensor<?x6x8xf32>, tensor<?x6x1xf32>) -> tensor<?x6x8xf32>
  %sc = onnx.Mul(%n, %w) : (tensor<?x6x8xf32>, tensor<8xf32>) -> tensor<?x6x8xf32>
  %y = onnx.Add(%sc, %b) : (tensor<?x6x8xf32>, tensor<8xf32>) -> tensor<?x6x8xf32>
  return %y : tensor<?x6x8xf32>
}

// -----

// The centered value is also used elsewhere: not fused.
// CHECK-LABEL: func.func @layer_norm_shared
// CHECK:         onnx.ReduceMean
// CHECK-NOT:     onnx.LayerNormalization
func.func @layer_norm_shared(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %none = onnx.NoValue
  %two = onnx.Constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %eps = onnx.Constant {value = dense<1.0E-5> : tensor<f32>} : tensor<f32>
  %m = onnx.ReduceMean(%x, %none) {axes = array<i64: -1>} : (tensor<4x8xf32>, none) -> tensor<4x1xf32>
  %d = onnx.Sub(%x, %m) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %p = onnx.Pow(%d, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %v = onnx.ReduceMean(%p, %none) {axes = array<i64: -1>} : (tensor<4x8xf32>, none) -> tensor<4x1xf32>
  %a = onnx.Add(%v, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = onnx.Sqrt(%a) : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = onnx.Div(%d, %s) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %y = onnx.Mul(%n, %w) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y, %d : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Exact GELU as PyTorch exports it: x * (1 + erf(x / sqrt 2)) * 0.5.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[Y:.*]] = onnx.ms.Gelu(%[[X]])
// CHECK-NOT:     onnx.Erf
// CHECK:         return %[[Y]]
func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %sqrt2 = onnx.Constant {value = dense<1.41421354> : tensor<f32>} : tensor<f32>
  %one = onnx.Constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
  %half = onnx.Constant {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %d = onnx.Div(%x, %sqrt2) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %e = onnx.Erf(%d) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = onnx.Add(%e, %one) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = onnx.Mul(%x, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = onnx.Mul(%m, %half) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A different constant (not GELU): left alone.
// CHECK-LABEL: func.func @not_gelu
// CHECK:         onnx.Erf
// CHECK-NOT:     onnx.ms.Gelu
func.func @not_gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = onnx.Constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %one = onnx.Constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
  %half = onnx.Constant {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %d = onnx.Div(%x, %c) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %e = onnx.Erf(%d) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = onnx.Add(%e, %one) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = onnx.Mul(%x, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = onnx.Mul(%m, %half) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
