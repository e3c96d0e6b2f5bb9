// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// ConvTranspose, BatchNormalizationGrad, SoftmaxCrossEntropyLossInternalGrad
// and BroadcastGradientArgs.

// ConvTranspose with stride 2: the input spread with zeros between its
// pixels (inserted into a zero fill), padded by kernel - 1, then convolved
// with the flipped, transposed filter (a linalg.conv_2d_nchw_fchw, which
// the CPU computes as per-image products: odt-lower-convolutions).
// CHECK-LABEL: func.func @conv_transpose(
// CHECK:         linalg.fill
// CHECK:         tensor.insert_slice %{{.*}}[0, 0, 0, 0] [1, 4, 3, 3] [1, 1, 2, 2]
// CHECK:         %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK:         linalg.generic
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[PADDED]], %{{.*}} : tensor<1x4x9x9xf32>, tensor<2x4x3x3xf32>)
// CHECK-NOT:     scf.forall
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  %none = onnx.NoValue
  %0 = onnx.ConvTranspose(%x, %w, %none) {strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>, none) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

// BatchNormalizationGrad: per channel, the sums of dY and of
// dY * (x - mean) (one pass over each image's H x W slice, then those
// partial sums over N), then
// dX = scale * inv_std * (dY - mean(dY) - x_hat * mean(dY * x_hat)).
// CHECK-LABEL: func.func @batch_norm_grad(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:           arith.divf
// CHECK:           arith.subf
func.func @batch_norm_grad(%dy: tensor<2x3x4x4xf32>, %x: tensor<2x3x4x4xf32>, %scale: tensor<3xf32>, %mean: tensor<3xf32>, %inv: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = onnx.ms.BatchNormalizationGrad(%dy, %x, %scale, %mean, %inv) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// SoftmaxCrossEntropyLossInternalGrad (mean): (exp(log_prob) - one_hot(label))
// * dY / count.
// CHECK-LABEL: func.func @sce_internal_grad(
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.addf
// CHECK:         arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.exp
// CHECK:           linalg.index 1
// CHECK:           arith.cmpi eq
// CHECK:           arith.select
// CHECK:           arith.subf
// CHECK:           arith.mulf
func.func @sce_internal_grad(%dy: tensor<f32>, %logp: tensor<4x5xf32>, %l: tensor<4xi64>) -> tensor<4x5xf32> {
  %none = onnx.NoValue
  %0 = onnx.ms.SoftmaxCrossEntropyLossInternalGrad(%dy, %logp, %l, %none, %none, %none) : (tensor<f32>, tensor<4x5xf32>, tensor<4xi64>, none, none, none) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// BroadcastGradientArgs of constant shapes [2, 4] and [4]: folded to
// constants (A reduces nothing, B was broadcast along dim 0).
// CHECK-LABEL: func.func @broadcast_gradient_args(
// CHECK-DAG:     arith.constant dense<> : tensor<0xi64>
// CHECK-DAG:     arith.constant dense<0> : tensor<1xi64>
// CHECK-NOT:     linalg.
func.func @broadcast_gradient_args() -> (tensor<?xi64>, tensor<?xi64>) {
  %a = onnx.Constant {value = dense<[2, 4]> : tensor<2xi64>} : tensor<2xi64>
  %b = onnx.Constant {value = dense<[4]> : tensor<1xi64>} : tensor<1xi64>
  %0:2 = onnx.ms.BroadcastGradientArgs(%a, %b) : (tensor<2xi64>, tensor<1xi64>) -> (tensor<?xi64>, tensor<?xi64>)
  return %0#0, %0#1 : tensor<?xi64>, tensor<?xi64>
}
