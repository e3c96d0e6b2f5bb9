// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// SimplifiedLayerNormalization (RMSNorm) and its gradient, and FastGeluGrad.

// SimplifiedLayerNormalization (RMSNorm) over the last axis:
// inv = 1 / sqrt(mean(x * x) + epsilon), Y = x * inv * scale; inv is the
// second result.
// CHECK-LABEL: func.func @simplified_layer_norm(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK:           arith.divf
// CHECK:           arith.addf
// CHECK:           math.sqrt
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK-NOT:       arith.subf
func.func @simplified_layer_norm(%x: tensor<2x8xf32>, %scale: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
  %0:2 = onnx.SimplifiedLayerNormalization(%x, %scale) : (tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>)
  return %0#0, %0#1 : tensor<2x8xf32>, tensor<2x1xf32>
}

// -----

// SimplifiedLayerNormalizationGrad: the row sum dX needs and the scale
// gradient summed over rows, then dX.
// CHECK-LABEL: func.func @simplified_layer_norm_grad(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.divf
// CHECK:           arith.subf
func.func @simplified_layer_norm_grad(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %scale: tensor<8xf32>, %inv: tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>) {
  %0:2 = onnx.ms.SimplifiedLayerNormalizationGrad(%dy, %x, %scale, %inv) : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  return %0#0, %0#1 : tensor<2x8xf32>, tensor<8xf32>
}

// -----

// FastGeluGrad: with t = tanh(a * (x + g * x^3)), a = sqrt(2 / pi),
// g = 0.044715: dy * (0.5 * (1 + t) + 0.5 * x * (1 - t^2) * a * (1 + 3 g x^2)).
// CHECK-LABEL: func.func @fast_gelu_grad(
// CHECK:         linalg.generic
// CHECK:           arith.constant 0.797884583 : f32
// CHECK:           arith.constant 4.471500e-02 : f32
// CHECK:           math.tanh
// CHECK:           arith.constant 0.107032225 : f32
// CHECK:           arith.constant 5.000000e-01 : f32
func.func @fast_gelu_grad(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.ms.FastGeluGrad(%dy, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
