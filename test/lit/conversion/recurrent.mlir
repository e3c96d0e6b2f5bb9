// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Recurrent layers in inference form (their training forms and gradients:
// recurrent-training.mlir; their numbers against PyTorch: the zoo's GRU and
// LSTM models, zoo/models.py, ctest -L zoo).

// LSTM (forward, default activations): X times W^T for every step in one
// product before the loop, then per step (scf.for over the sequence, the
// state in buffers of its own) H times R^T and the gates in one generic:
// i, f, o = sigmoid, c~ = tanh, c = f * c + i * c~, h = o * tanh(c).
// CHECK-LABEL: func.func @lstm(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         bufferization.alloc_tensor
// CHECK:         bufferization.alloc_tensor
// CHECK:         scf.for
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             math.exp
// CHECK:             arith.divf
// CHECK:             math.exp
// CHECK:             arith.divf
// CHECK:             math.tanh
// CHECK:             math.exp
// CHECK:             arith.divf
// CHECK:             math.tanh
// CHECK:           scf.yield
func.func @lstm(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) -> tensor<5x1x2x4xf32> {
  %none = onnx.NoValue
  %0:3 = onnx.LSTM(%x, %w, %r, %none, %none, %none, %none, %none) {hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0 : tensor<5x1x2x4xf32>
}

// -----

// RNN (forward, tanh): X times W^T before the loop, then per step
// h = tanh(x_t W^T + h R^T).
// CHECK-LABEL: func.func @rnn(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         scf.for
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             math.tanh
// CHECK:           scf.yield
func.func @rnn(%x: tensor<5x2x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) -> tensor<5x1x2x4xf32> {
  %none = onnx.NoValue
  %0:2 = onnx.RNN(%x, %w, %r, %none, %none, %none) {hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0 : tensor<5x1x2x4xf32>
}
