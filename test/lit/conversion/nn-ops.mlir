// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Products, pools and normalizations: linalg's named ops where one says it
// (matmul, batch_matmul, pooling), generics with the formula otherwise.

// MatMul of 2-D operands: linalg.matmul into a zero fill (the CPU backend
// turns it into its register-tiled kernel later).
// CHECK-LABEL: func.func @matmul(
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x4xf32>) outs(%[[ZERO]] : tensor<?x4xf32>)
func.func @matmul(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) -> tensor<?x4xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// MatMul of 3-D operands with the same batch: linalg.batch_matmul.
// CHECK-LABEL: func.func @batched_matmul(
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x8xf32>, tensor<2x8x4xf32>) outs(%[[ZERO]] : tensor<2x3x4xf32>)
func.func @batched_matmul(%a: tensor<2x3x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x3x4xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<2x3x8xf32>, tensor<2x8x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// MaxPool 2x2 stride 2: linalg.pooling_nchw_max into a fill of -inf.
// CHECK-LABEL: func.func @max_pool(
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:         linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%[[INIT]]
func.func @max_pool(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0:2 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  return %0#0 : tensor<1x2x4x4xf32>
}

// -----

// With Indices: one generic over the outputs' positions, the window's 4
// taps unrolled in its order (an input each, at its offset), each compared
// and selected into the max and its flat index in turn.
// CHECK-DAG:   #[[TAP0:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2)>
// CHECK-DAG:   #[[TAP1:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2 + 1)>
// CHECK-DAG:   #[[TAP2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + 1, d3 * 2)>
// CHECK-DAG:   #[[TAP3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + 1, d3 * 2 + 1)>
// CHECK-LABEL: func.func @max_pool_with_indices(
// CHECK:         linalg.generic {indexing_maps = [#[[TAP0]], #[[TAP1]], #[[TAP2]], #[[TAP3]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-COUNT-4:   arith.select %{{.*}} : i64
// CHECK:           linalg.yield
func.func @max_pool_with_indices(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) {
  %0:2 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  return %0#0, %0#1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>
}

// -----

// A window of more than 16 taps (5x5) keeps them as reduction loops.
// CHECK-LABEL: func.func @max_pool_with_indices_large_window(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-COUNT-1:   arith.select %{{.*}} : i64
// CHECK:           linalg.yield
func.func @max_pool_with_indices_large_window(%x: tensor<1x2x10x10xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  %0:2 = onnx.MaxPool(%x) {kernel_shape = array<i64: 5, 5>, strides = array<i64: 5, 5>} : (tensor<1x2x10x10xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %0#0, %0#1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

// AveragePool 2x2 stride 2: a window sum, then divided by the window size.
// CHECK-LABEL: func.func @average_pool(
// CHECK:         linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK:         linalg.generic
// CHECK:           arith.divf
func.func @average_pool(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// GlobalAveragePool: a sum over H and W, divided by their count, then the
// two unit dims put back.
// CHECK-LABEL: func.func @global_average_pool(
// CHECK:         linalg.reduce
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:         tensor.expand_shape {{.*}} output_shape [1, 2, 1, 1]
func.func @global_average_pool(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32> {
  %0 = onnx.GlobalAveragePool(%x) : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

// LayerNormalization over the last axis: the mean, the variance of x - mean,
// 1 / sqrt(variance + epsilon), then (x - mean) * that * scale + bias.
// CHECK-LABEL: func.func @layer_norm(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:           arith.addf
// CHECK:           math.sqrt
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @layer_norm(%x: tensor<2x8xf32>, %scale: tensor<8xf32>, %bias: tensor<8xf32>) -> tensor<2x8xf32> {
  %0:3 = onnx.LayerNormalization(%x, %scale, %bias) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0 : tensor<2x8xf32>
}

// -----

// BatchNormalization in inference mode, as ORT's kernel computes it: per
// channel alpha = 1 / sqrt(var + eps) * scale and beta = bias - mean *
// alpha, then one generic over x reading them per channel (d1):
// x * alpha + beta, with no division per element.
// CHECK-DAG:     #[[$CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_inference(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel"]}
// CHECK:           arith.addf
// CHECK:           math.sqrt
// CHECK:           arith.divf
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.subf
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$CHANNEL]], #[[$CHANNEL]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:        arith.mulf
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        linalg.yield
func.func @batch_norm_inference(%x: tensor<2x3x4x4xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0:3 = onnx.BatchNormalization(%x, %scale, %bias, %mean, %var) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<2x3x4x4xf32>
}
