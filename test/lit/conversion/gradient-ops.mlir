// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// com.microsoft gradient ops that have a lowering of their own (ReluGrad,
// SigmoidGrad, TanhGrad and LeakyReluGrad are rewritten into ai.onnx ops
// before: test/lit/compiler/decompose-training-ops.mlir).

// GeluGrad: dy * (0.5 * (1 + erf(x / sqrt(2))) + x * exp(-x * x / 2) / sqrt(2 pi)),
// in one generic (erf as in Erf).
// CHECK-LABEL: func.func @gelu_grad(
// CHECK:         linalg.generic
// CHECK:           arith.constant 0.707106769 : f32
// CHECK:           arith.divf
// CHECK:           arith.constant -5.000000e-01 : f32
// CHECK:           arith.constant 0.398942292 : f32
// CHECK:           math.exp
// CHECK:           linalg.yield
func.func @gelu_grad(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.ms.GeluGrad(%dy, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// SoftmaxGrad_13 on the last axis: y * (dy - sum(dy * y)).
// CHECK-LABEL: func.func @softmax_grad(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
func.func @softmax_grad(%dy: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = onnx.ms.SoftmaxGrad_13(%dy, %y) {axis = -1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// LogSoftmaxGrad_13 on the last axis: dy - exp(y) * sum(dy).
// CHECK-LABEL: func.func @log_softmax_grad(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.exp
// CHECK:           arith.mulf
// CHECK:           arith.subf
func.func @log_softmax_grad(%dy: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = onnx.ms.LogSoftmaxGrad_13(%dy, %y) {axis = -1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Scale: x times the scalar, read once outside the loop.
// CHECK-LABEL: func.func @scale(
// CHECK:         %[[S:.*]] = tensor.extract
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[S]]
func.func @scale(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %0 = onnx.ms.Scale(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
