// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Training ops of ORT's gradient graphs and optimizers: FusedMatMul,
// DropoutGrad, ReduceSumTraining, InPlaceAccumulator, ZeroGradient,
// GatherGrad and BatchNormInternal. (BiasGelu and FastGelu have no lowering
// of their own: odt-decompose-training-ops rewrites them first.)

// FusedMatMul with transB and alpha 0.5: B read through its transposed map
// (no copy), then the product scaled.
// CHECK-DAG:     #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:     #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @fused_matmul(
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #[[$BT]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[ALPHA]]
func.func @fused_matmul(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %0 = onnx.ms.FusedMatMul(%a, %b) {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// DropoutGrad in training mode: dy / (1 - ratio) where the mask kept the
// element, else 0 (all zero when ratio is 1).
// CHECK-LABEL: func.func @dropout_grad(
// CHECK:         arith.subf
// CHECK:         arith.cmpf oeq
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:           arith.select
// CHECK:           arith.select
func.func @dropout_grad(%dy: tensor<4xf32>, %mask: tensor<4xi1>) -> tensor<4xf32> {
  %ratio = onnx.Constant {value = dense<0.25> : tensor<f32>} : tensor<f32>
  %training = onnx.Constant {value = dense<true> : tensor<i1>} : tensor<i1>
  %0 = onnx.ms.DropoutGrad(%dy, %mask, %ratio, %training) : (tensor<4xf32>, tensor<4xi1>, tensor<f32>, tensor<i1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ReduceSumTraining over axis 0 (axes as an input): one reduction.
// CHECK-LABEL: func.func @reduce_sum_training(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:           arith.addf
func.func @reduce_sum_training(%x: tensor<2x4xf32>) -> tensor<4xf32> {
  %axes = onnx.Constant {value = dense<[0]> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ms.ReduceSumTraining(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// InPlaceAccumulator: old_sum + value, or old_sum unchanged when
// update_signal is false (read once outside the loop).
// CHECK-LABEL: func.func @in_place_accumulator(
// CHECK:         %[[UPDATE:.*]] = tensor.extract
// CHECK:         linalg.generic
// CHECK:           %[[SUM:.*]] = arith.addf
// CHECK:           arith.select %[[UPDATE]], %[[SUM]]
func.func @in_place_accumulator(%sum: tensor<4xf32>, %g: tensor<4xf32>, %update: tensor<1xi1>) -> tensor<4xf32> {
  %0 = onnx.ms.InPlaceAccumulator(%sum, %g, %update) : (tensor<4xf32>, tensor<4xf32>, tensor<1xi1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ZeroGradient: a fill of zeros (the reset signal only orders the step).
// CHECK-LABEL: func.func @zero_gradient(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT:     linalg.generic
func.func @zero_gradient(%g: tensor<4xf32>, %reset: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.ms.ZeroGradient(%g, %reset) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// GatherGrad on axis 0: zeros, then each dY row added into the row its
// index names, in order (an scf.for: indices may repeat).
// CHECK-LABEL: func.func @gather_grad(
// CHECK:         linalg.fill
// CHECK:         scf.for
// CHECK:           tensor.extract
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           tensor.extract_slice
// CHECK:           tensor.extract_slice
// CHECK:           linalg.generic
// CHECK:             arith.addf
// CHECK:           tensor.insert_slice
// CHECK:           scf.yield
func.func @gather_grad(%dy: tensor<3x4xf32>, %i: tensor<3xi64>) -> tensor<5x4xf32> {
  %shape = onnx.Constant {value = dense<[5, 4]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.ms.GatherGrad(%shape, %i, %dy) {axis = 0 : i64} : (tensor<2xi64>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// BatchNormInternal (training mode): the batch mean and variance per
// channel, summed over each image's H x W slice, then over N; the
// normalized output from them; the running statistics updated with
// momentum 0.9: running * 0.9 + batch * (1 - 0.9).
// CHECK-LABEL: func.func @batch_norm_training(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[MOMENTUM:.*]] = arith.constant 0.899999976 : f32
// CHECK:         %[[REST:.*]] = arith.constant 0.100000024 : f32
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[MOMENTUM]]
// CHECK:           arith.mulf %{{.*}}, %[[REST]]
// CHECK:           arith.addf
func.func @batch_norm_training(%x: tensor<2x3x4x4xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:5 = onnx.ms.BatchNormInternal(%x, %scale, %bias, %mean, %var) {epsilon = 1.0e-05 : f32, momentum = 0.9 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
