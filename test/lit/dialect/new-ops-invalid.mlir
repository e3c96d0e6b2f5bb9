// RUN: odt-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the ops PyTorch exports that odt added: each names the
// node.

func.func @mod_float_needs_fmod(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'mod1' (onnx.Mod): floating-point Mod needs fmod = 1 (ONNX defines fmod = 0 for integers only)}}
  %0 = onnx.Mod(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32> loc("mod1")
  return %0 : tensor<*xf32>
}

// -----

func.func @celu_alpha_zero(%x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'celu1' (onnx.Celu): alpha must not be 0 (Celu divides by it)}}
  %0 = onnx.Celu(%x) {alpha = 0.0 : f32} : (tensor<3xf32>) -> tensor<*xf32> loc("celu1")
  return %0 : tensor<*xf32>
}

// -----

func.func @gru_direction(%x: tensor<7x2x4xf32>, %w: tensor<1x15x4xf32>, %r: tensor<1x15x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @unknown {{node 'gru1' (onnx.GRU): direction must be forward, reverse or bidirectional, not 'sideways'}}
  %y, %yh = onnx.GRU(%x, %w, %r, %none, %none, %none) {direction = "sideways", hidden_size = 5 : i64} : (tensor<7x2x4xf32>, tensor<1x15x4xf32>, tensor<1x15x5xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>) loc("gru1")
  return %y, %yh : tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @lstm_activations(%x: tensor<7x2x4xf32>, %w: tensor<1x20x4xf32>, %r: tensor<1x20x5xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @unknown {{node 'lstm1' (onnx.LSTM): LSTM with direction forward needs 3 activations, got 2}}
  %y, %yh, %yc = onnx.LSTM(%x, %w, %r, %none, %none, %none, %none, %none) {activations = ["Sigmoid", "Tanh"], hidden_size = 5 : i64} : (tensor<7x2x4xf32>, tensor<1x20x4xf32>, tensor<1x20x5xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) loc("lstm1")
  return %y, %yh, %yc : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @gru_training_clip(%x: tensor<7x2x4xf32>, %w: tensor<1x15x4xf32>, %r: tensor<1x15x5xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @unknown {{node 'gru2' (onnx.ms.GRUTraining): training GRU with clip is not supported}}
  %y, %yh, %g = onnx.ms.GRUTraining(%x, %w, %r, %none, %none, %none) {clip = 3.0 : f32, hidden_size = 5 : i64} : (tensor<7x2x4xf32>, tensor<1x15x4xf32>, tensor<1x15x5xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) loc("gru2")
  return %y, %yh, %g : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @resize_crop(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @unknown {{node 'resize1' (onnx.Resize): coordinate_transformation_mode tf_crop_and_resize is not supported (its region of interest and extrapolation are not a fixed linear map of the input)}}
  %0 = onnx.Resize(%x, %none, %s, %none) {coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x1x4x4xf32>, none, tensor<4xf32>, none) -> tensor<*xf32> loc("resize1")
  return %0 : tensor<*xf32>
}

// -----

func.func @scatter_nd_reduction(%d: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'scatter1' (onnx.ScatterND): reduction must be none, add, mul, max or min, not 'avg'}}
  %0 = onnx.ScatterND(%d, %i, %u) {reduction = "avg"} : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<*xf32> loc("scatter1")
  return %0 : tensor<*xf32>
}
