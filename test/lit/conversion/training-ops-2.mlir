// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Dropout, scatters, Size, and the training ops SplitTraining,
// InplaceClipGradNorm, DivGrad and SoftmaxCrossEntropyLossInternal.

// Dropout in training mode: each element's mask from a hash of its index
// mixed with the seed (multiply, shift, xor rounds; odt-add-random-state
// adds the session's seed and step first in a compiled model), kept when
// the hash's uniform float is at least the ratio, scaled by 1 / (1 - ratio).
// CHECK-LABEL: func.func @dropout(
// CHECK:         arith.subf
// CHECK:         arith.divf
// CHECK:         linalg.generic
// CHECK:           linalg.index 0
// CHECK:           arith.shrui
// CHECK:           arith.xori
// CHECK:           arith.uitofp
// CHECK:           arith.cmpf oge
// CHECK:           arith.mulf
// CHECK:           arith.select
func.func @dropout(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi1>) {
  %ratio = onnx.Constant {value = dense<0.25> : tensor<f32>} : tensor<f32>
  %training = onnx.Constant {value = dense<true> : tensor<i1>} : tensor<i1>
  %0:2 = onnx.Dropout(%x, %ratio, %training) {seed = 7 : i64} : (tensor<8xf32>, tensor<f32>, tensor<i1>) -> (tensor<8xf32>, tensor<8xi1>)
  return %0#0, %0#1 : tensor<8xf32>, tensor<8xi1>
}

// -----

// ScatterElements on axis 1 (no reduction): each output element takes the
// last update whose index names it, else the data.
// CHECK-LABEL: func.func @scatter_elements(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           linalg.index
// CHECK:           arith.cmpi eq
// CHECK:           arith.select
func.func @scatter_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %0 = onnx.ScatterElements(%x, %i, %u) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// ScatterND: the updates written one index tuple after another (scf.for),
// each index range-checked.
// CHECK-LABEL: func.func @scatter_nd(
// CHECK:         scf.for
// CHECK:           tensor.extract
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           tensor.insert_slice
// CHECK:           scf.yield
func.func @scatter_nd(%x: tensor<5x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) -> tensor<5x4xf32> {
  %0 = onnx.ScatterND(%x, %i, %u) : (tensor<5x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Size: the product of the dims, as an i64 scalar tensor.
// CHECK-LABEL: func.func @size(
// CHECK:         %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK:         arith.muli %[[N]]
// CHECK:         arith.index_cast
// CHECK:         tensor.from_elements
func.func @size(%x: tensor<?x4xf32>) -> tensor<i64> {
  %0 = onnx.Size(%x) : (tensor<?x4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// SplitTraining by sizes [2, 4] (an input, so offsets and sizes are index
// values until canonicalization folds them): one extract per output.
// CHECK-LABEL: func.func @split_training(
// CHECK:         tensor.extract_slice %{{.*}}[0, %{{.*}}] [2, %{{.*}}] [1, 1]
// CHECK:         tensor.cast %{{.*}} to tensor<2x2xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, %{{.*}}] [2, %{{.*}}] [1, 1]
// CHECK:         tensor.cast %{{.*}} to tensor<2x4xf32>
// CHECK-NOT:     linalg.
func.func @split_training(%x: tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>) {
  %sizes = onnx.Constant {value = dense<[2, 4]> : tensor<2xi64>} : tensor<2xi64>
  %0:2 = onnx.ms.SplitTraining(%x, %sizes) {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x4xf32>
}

// -----

// InplaceClipGradNorm (max_norm 1): the Frobenius norm over all
// gradients, then every gradient times min(1, max_norm / (norm + 1e-6)).
// CHECK-LABEL: func.func @clip_grad_norm(
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         math.sqrt
// CHECK:         %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK:         arith.addf %{{.*}}, %[[EPS]]
// CHECK:         arith.divf
// CHECK:         arith.minimumf
// CHECK:         linalg.generic
// CHECK:           arith.mulf
// CHECK:         linalg.generic
// CHECK:           arith.mulf
func.func @clip_grad_norm(%a: tensor<4xf32>, %b: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
  %0:2 = onnx.ms.InplaceClipGradNorm(%a, %b) {max_norm = 1.0 : f32} : (tensor<4xf32>, tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<2x3xf32>
}

// -----

// DivGrad: dA = dY / B; dB = -dY * A / B^2, summed over the dims B was
// broadcast along.
// CHECK-LABEL: func.func @div_grad(
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:         linalg.generic
// CHECK:           arith.negf
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:           arith.addf
func.func @div_grad(%dy: tensor<2x4xf32>, %a: tensor<2x4xf32>, %b: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %0:2 = onnx.ms.DivGrad(%dy, %a, %b) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<2x4xf32>, tensor<4xf32>
}

// -----

// SoftmaxCrossEntropyLossInternal (mean): log-softmax of the scores (the
// second result), then -log_prob[n, label[n]] summed and divided.
// CHECK-LABEL: func.func @sce_internal(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.log
// CHECK:           arith.subf
// CHECK:           tensor.extract
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.addf
// CHECK:           arith.divf
func.func @sce_internal(%s: tensor<4x5xf32>, %l: tensor<4xi64>) -> (tensor<f32>, tensor<4x5xf32>) {
  %none = onnx.NoValue
  %0:2 = onnx.ms.SoftmaxCrossEntropyLossInternal(%s, %l, %none, %none) : (tensor<4x5xf32>, tensor<4xi64>, none, none) -> (tensor<f32>, tensor<4x5xf32>)
  return %0#0, %0#1 : tensor<f32>, tensor<4x5xf32>
}
