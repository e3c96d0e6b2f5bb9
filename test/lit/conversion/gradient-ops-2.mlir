// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Gelu's tanh form and gradient ops of ORT's training graphs: SoftmaxGrad and
// LogSoftmaxGrad (opset < 13 forms), SliceGrad, GatherElementsGrad,
// MaxPoolGrad, AveragePoolGrad, LayerNormalizationGrad.

// Gelu with approximate = "tanh":
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu(
// CHECK:         linalg.generic
// CHECK:           arith.constant 4.471500e-02 : f32
// CHECK:           arith.constant 0.797884583 : f32
// CHECK:           math.tanh
// CHECK-NOT:       math.exp
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Gelu(%x) {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// SoftmaxGrad (opset < 13 form) on axis 1 of a 2-D tensor: as SoftmaxGrad_13.
// CHECK-LABEL: func.func @softmax_grad_v1(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
func.func @softmax_grad_v1(%dy: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = onnx.ms.SoftmaxGrad(%dy, %y) {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// LogSoftmaxGrad (opset < 13 form): dy - exp(y) * sum(dy).
// CHECK-LABEL: func.func @log_softmax_grad_v1(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.exp
// CHECK:           arith.mulf
// CHECK:           arith.subf
func.func @log_softmax_grad_v1(%dy: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = onnx.ms.LogSoftmaxGrad(%dy, %y) {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// SliceGrad: zeros of the input's shape with dY inserted where the slice
// read (rows 1, 3, 5 of 8).
// CHECK-LABEL: func.func @slice_grad(
// CHECK:         %[[ZEROS:.*]] = linalg.fill
// CHECK:         tensor.insert_slice %{{.*}} into %[[ZEROS]][%{{.*}}, 0] [3, 6] [2, 1]
func.func @slice_grad(%dy: tensor<3x6xf32>) -> tensor<8x6xf32> {
  %shape = onnx.Constant {value = dense<[8, 6]> : tensor<2xi64>} : tensor<2xi64>
  %starts = onnx.Constant {value = dense<[1]> : tensor<1xi64>} : tensor<1xi64>
  %ends = onnx.Constant {value = dense<[7]> : tensor<1xi64>} : tensor<1xi64>
  %axes = onnx.Constant {value = dense<[0]> : tensor<1xi64>} : tensor<1xi64>
  %steps = onnx.Constant {value = dense<[2]> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ms.SliceGrad(%dy, %shape, %starts, %ends, %axes, %steps) : (tensor<3x6xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// GatherElementsGrad on axis 1: zeros, then each dY element added at its
// index, in order (an scf.for: indices may repeat).
// CHECK-LABEL: func.func @gather_elements_grad(
// CHECK:         linalg.fill
// CHECK:         scf.for
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           arith.addf
// CHECK:           tensor.insert
// CHECK:           scf.yield
func.func @gather_elements_grad(%dy: tensor<3x2xf32>, %i: tensor<3x2xi64>) -> tensor<3x4xf32> {
  %shape = onnx.Constant {value = dense<[3, 4]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.ms.GatherElementsGrad(%dy, %shape, %i) {axis = 1 : i64} : (tensor<3x2xf32>, tensor<2xi64>, tensor<3x2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// MaxPoolGrad with windows that tile the input (kernel = stride): each dX
// element reads its one window's dY where that window's argmax is this
// element, else 0. Tiled exactly (8 = 4 * 2), dY and the indices are the
// generic's inputs through (h floordiv 2, w floordiv 2); with a remainder
// (9 = 4 * 2 + 1: the last row and column in no window) they are gathered
// in the body, behind a bounds check.
// CHECK-DAG:   #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
// CHECK-LABEL: func.func @max_pool_grad(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {indexing_maps = [#[[WINDOW]], #[[WINDOW]], {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT:       tensor.extract
// CHECK:           arith.index_cast
// CHECK:           arith.cmpi eq
// CHECK:           arith.select
// CHECK-NOT:     scf.for
func.func @max_pool_grad(%dy: tensor<1x2x4x4xf32>, %idx: tensor<1x2x4x4xi64>) -> tensor<1x2x8x8xf32> {
  %0 = onnx.MaxPoolGrad(%dy, %idx) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool_grad_remainder(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:           tensor.extract
// CHECK:           arith.cmpi eq
// CHECK:           tensor.extract
// CHECK:           arith.select
// CHECK-NOT:     scf.for
func.func @max_pool_grad_remainder(%dy: tensor<1x2x4x4xf32>, %idx: tensor<1x2x4x4xi64>) -> tensor<1x2x9x9xf32> {
  %0 = onnx.MaxPoolGrad(%dy, %idx) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x2x9x9xf32>
  return %0 : tensor<1x2x9x9xf32>
}

// -----

// AveragePoolGrad: each dX element sums dY / window size over the windows
// that hold it.
// CHECK-LABEL: func.func @average_pool_grad(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK:           tensor.extract
// CHECK:           arith.divf
// CHECK:           arith.select
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK:           arith.addf
func.func @average_pool_grad(%dy: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %0 = onnx.AveragePoolGrad(%dy) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// LayerNormalizationGrad over the last axis: the two row sums dX needs
// (of dY * scale and of dY * scale * x_hat) in one reduction, the scale and
// bias gradients summed over rows in another, then dX.
// CHECK-LABEL: func.func @layer_norm_grad(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.divf
// CHECK:           arith.divf
// CHECK:           arith.subf
func.func @layer_norm_grad(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %scale: tensor<8xf32>, %mean: tensor<2x1xf32>, %inv: tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = onnx.ms.LayerNormalizationGrad(%dy, %x, %scale, %mean, %inv) {axis = -1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>
}
