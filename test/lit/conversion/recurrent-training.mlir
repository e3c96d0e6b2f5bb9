// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// The training forms of the recurrent layers (com.microsoft, as ORT's
// training graphs and odt's autodiff use them) and their gradients. The
// zoo's GRU and LSTM models check their numbers against PyTorch
// (zoo/models.py, ctest -L zoo); these check the structure: one product of
// X by W for all steps, a loop over the steps that keeps every step's
// state and gates, and for the gradients a loop back through time
// followed by the weight gradients as products over all steps.

// GRUTraining (linear_before_reset): per step, H R^T, then one generic
// with z = sigmoid, r = sigmoid, h~ = tanh(x_h + r * (h R_h^T)),
// h = (1 - z) * h~ + z * h, which also writes z, r and h~ into ZRH.
// CHECK-LABEL: func.func @gru_training(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<6x3xf32>, tensor<12x3xf32>
// CHECK:         scf.for %[[T:.*]] = %c0 to %c3 step %c1
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<2x4xf32>, tensor<12x4xf32>
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             math.exp
// CHECK:             math.exp
// CHECK:             math.tanh
// CHECK:             linalg.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK:           tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 0] [1, 2, 4]
// CHECK:           tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 0] [1, 2, 4] {{.*}} into tensor<3x2x12xf32>
// CHECK:           tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 4] [1, 2, 4] {{.*}} into tensor<3x2x12xf32>
// CHECK:           tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 8] [1, 2, 4] {{.*}} into tensor<3x2x12xf32>
// CHECK:           scf.yield
func.func @gru_training(%x: tensor<3x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>) -> (tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<3x1x2x12xf32>) {
  %none = onnx.NoValue
  %h, %yh, %zrh = onnx.ms.GRUTraining(%x, %w, %r, %none, %none, %none) {hidden_size = 4 : i64, linear_before_reset = 1 : i64} : (tensor<3x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, none, none) -> (tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<3x1x2x12xf32>)
  return %h, %yh, %zrh : tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<3x1x2x12xf32>
}

// -----

// LSTMTraining: per step, H R^T, then the gates (i, f, o = sigmoid,
// c~ = tanh, c = f * c + i * c~, h = o * tanh(c)); every step's H, C and
// gates (IOFC) are kept.
// CHECK-LABEL: func.func @lstm_training(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<6x3xf32>, tensor<16x3xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x16xf32>, tensor<3x2x4xf32>)
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<2x4xf32>, tensor<16x4xf32>
// CHECK:             math.exp
// CHECK:             math.exp
// CHECK:             math.tanh
// CHECK:             math.exp
// CHECK:             math.tanh
// CHECK:           scf.yield
func.func @lstm_training(%x: tensor<3x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) -> (tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<3x1x2x4xf32>, tensor<3x1x2x16xf32>) {
  %none = onnx.NoValue
  %h, %yh, %yc, %call, %iofc = onnx.ms.LSTMTraining(%x, %w, %r, %none, %none, %none, %none, %none) {hidden_size = 4 : i64} : (tensor<3x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<3x1x2x4xf32>, tensor<3x1x2x16xf32>)
  return %h, %yh, %yc, %call, %iofc : tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<3x1x2x4xf32>, tensor<3x1x2x16xf32>
}

// -----

// RNNGrad (tanh): back through time (step 2 - k), the gate gradient
// dA = (dH + dH_next) * (1 - h^2) kept per step, dH_next = dA R; after the
// loop dW = dA^T X and dR = dA^T H_prev over all steps and batch entries,
// dB the sums of dA (twice: W's bias and R's), dX = dA W.
// CHECK-LABEL: func.func @rnn_grad(
// CHECK:         scf.for %[[K:.*]] = %c0 to %c3 step
// CHECK:           %[[STEP:.*]] = arith.subi %c2{{.*}}, %[[K]] : index
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             arith.addf
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             arith.mulf %[[H:.*]], %[[H]] : f32
// CHECK:             arith.subf
// CHECK:           tensor.insert_slice %{{.*}}[%[[STEP]], 0, 0] [1, 2, 4]
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<2x4xf32>, tensor<4x4xf32>
// CHECK:           scf.yield
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<6x4xf32>, tensor<6x3xf32>) outs({{.*}}tensor<4x3xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<6x4xf32>, tensor<6x4xf32>) outs({{.*}}tensor<4x4xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<6x4xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<6x4xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<6x4xf32>, tensor<4x3xf32>) outs({{.*}}tensor<6x3xf32>)
// CHECK:         return
func.func @rnn_grad(%x: tensor<3x2x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>, %hall: tensor<3x1x2x4xf32>, %dh: tensor<3x1x2x4xf32>) -> (tensor<3x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32>) {
  %none = onnx.NoValue
  %dx, %dw, %dr, %db, %dh0 = onnx.ms.RNNGrad(%x, %w, %r, %none, %none, %none, %hall, %dh, %none) {hidden_size = 4 : i64} : (tensor<3x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none, tensor<3x1x2x4xf32>, tensor<3x1x2x4xf32>, none) -> (tensor<3x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32>)
  return %dx, %dw, %dr, %db, %dh0 : tensor<3x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32>
}

// -----

// GRUGrad (linear_before_reset): back through time, the gradients of z,
// h~ and r from the kept gates (ZRH), with (h R_h^T) recomputed for r's;
// each step's gate gradients go to two [T, B, 3H] buffers (for W, and for
// R where h~'s slot holds r * dh~), and dH_prev = dGates R + z * dH.
// After the loop: dW, dR as products over all steps, dB as sums, dX.
// CHECK-LABEL: func.func @gru_grad(
// CHECK:         scf.for %[[K:.*]] = %c0 to %c3 step {{.*}} -> (tensor<2x4xf32>, tensor<3x2x12xf32>, tensor<3x2x12xf32>)
// CHECK:           %[[STEP:.*]] = arith.subi %c2{{.*}}, %[[K]] : index
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             linalg.yield %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<2x4xf32>, tensor<4x4xf32>
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:             linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK:           tensor.insert_slice %{{.*}}[%[[STEP]], 0, 0] [1, 2, 4] {{.*}} into tensor<3x2x12xf32>
// CHECK:           tensor.insert_slice %{{.*}}[%[[STEP]], 0, 4] [1, 2, 4] {{.*}} into tensor<3x2x12xf32>
// CHECK:           tensor.insert_slice %{{.*}}[%[[STEP]], 0, 8] [1, 2, 4] {{.*}} into tensor<3x2x12xf32>
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<2x12xf32>, tensor<12x4xf32>
// CHECK:           scf.yield
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs({{.*}}tensor<12x3xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs({{.*}}tensor<12x4xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<6x12xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<6x12xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs({{.*}}tensor<6x3xf32>)
// CHECK:         return
func.func @gru_grad(%x: tensor<3x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %hall: tensor<3x1x2x4xf32>, %zrh: tensor<3x1x2x12xf32>, %dh: tensor<3x1x2x4xf32>) -> (tensor<3x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, tensor<1x2x4xf32>) {
  %none = onnx.NoValue
  %dx, %dw, %dr, %db, %dh0 = onnx.ms.GRUGrad(%x, %w, %r, %none, %none, %none, %hall, %zrh, %dh, %none) {hidden_size = 4 : i64, linear_before_reset = 1 : i64} : (tensor<3x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, none, none, tensor<3x1x2x4xf32>, tensor<3x1x2x12xf32>, tensor<3x1x2x4xf32>, none) -> (tensor<3x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, tensor<1x2x4xf32>)
  return %dx, %dw, %dr, %db, %dh0 : tensor<3x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, tensor<1x2x4xf32>
}

// -----

// LSTMGrad: back through time with the cell state's gradient carried
// beside H's; the gate gradients (from IOFC, CAll and tanh(c)) per step in
// a [T, B, 4H] buffer, dH_prev = dGates R; after the loop dW, dR, dB
// and dX as for the other cells.
// CHECK-LABEL: func.func @lstm_grad(
// CHECK:         scf.for %[[K:.*]] = %c0 to %c3 step {{.*}} -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x2x16xf32>, tensor<3x2x16xf32>)
// CHECK:           arith.subi %c2{{.*}}, %[[K]] : index
// CHECK:             math.tanh
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}tensor<2x16xf32>, tensor<16x4xf32>
// CHECK:           scf.yield
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs({{.*}}tensor<16x3xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs({{.*}}tensor<16x4xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<6x16xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<6x16xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs({{.*}}tensor<6x3xf32>)
// CHECK:         return
func.func @lstm_grad(%x: tensor<3x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %hall: tensor<3x1x2x4xf32>, %call: tensor<3x1x2x4xf32>, %iofc: tensor<3x1x2x16xf32>, %dh: tensor<3x1x2x4xf32>) -> (tensor<3x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) {
  %none = onnx.NoValue
  %dx, %dw, %dr, %db, %dh0, %dc0, %dp = onnx.ms.LSTMGrad(%x, %w, %r, %none, %none, %none, %none, %none, %hall, %call, %iofc, %dh, %none, %none) {hidden_size = 4 : i64} : (tensor<3x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, none, none, none, none, none, tensor<3x1x2x4xf32>, tensor<3x1x2x4xf32>, tensor<3x1x2x16xf32>, tensor<3x1x2x4xf32>, none, none) -> (tensor<3x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>)
  return %dx, %dw, %dr, %db, %dh0, %dc0, %dp : tensor<3x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>
}
