// RUN: odt-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the NN family (operands and attributes). Errors name
// the ONNX node (its NameLoc) and the op.

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'mm' (onnx.MatMul): A must have rank >= 1, got 0}}
  %0 = onnx.MatMul(%a, %b) : (tensor<f32>, tensor<3xf32>) -> tensor<*xf32> loc("mm")
  return %0 : tensor<*xf32>
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.MatMul' (onnx.MatMul): A and B must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.MatMul(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @matmul_bool(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) -> tensor<*xi1> {
  // expected-error @+1 {{'onnx.MatMul' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = onnx.MatMul(%a, %b) : (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

func.func @conv_rank(%x: tensor<1x3xf32>, %w: tensor<2x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'conv1' (onnx.Conv): X must have rank >= 3 (N, C and at least one spatial dim), got rank 2}}
  %0 = onnx.Conv(%x, %w, %none) : (tensor<1x3xf32>, tensor<2x3xf32>, none) -> tensor<*xf32> loc("conv1")
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): W (same rank as X) must have rank 4, got rank 3}}
  %0 = onnx.Conv(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): group must be positive, got 0}}
  %0 = onnx.Conv(%x, %w, %none) {group = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_auto_pad(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got 'SAME'}}
  %0 = onnx.Conv(%x, %w, %none) {auto_pad = "SAME"} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_pads_length(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): pads must have 4 values for 2 spatial dims, got 2}}
  %0 = onnx.Conv(%x, %w, %none) {pads = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_negative_pads(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): pads values must be non-negative, got [1, -1, 1, 1]}}
  %0 = onnx.Conv(%x, %w, %none) {pads = array<i64: 1, -1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_strides(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): strides values must be positive, got [0, 1]}}
  %0 = onnx.Conv(%x, %w, %none) {strides = array<i64: 0, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_dilations_length(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): dilations must have 2 values for 2 spatial dims, got 3}}
  %0 = onnx.Conv(%x, %w, %none) {dilations = array<i64: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_kernel_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): kernel_shape [3, 2] differs from the spatial dims of W [3, 3]}}
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 2>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_bias_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<1x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): B must have rank 1, got rank 2}}
  %0 = onnx.Conv(%x, %w, %b) : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, tensor<1x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_dynamic_kernel(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x?x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): the spatial dims of W must be static (or kernel_shape given)}}
  %0 = onnx.Conv(%x, %w, %none) : (tensor<1x4x8x8xf32>, tensor<2x4x?x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_transpose_output_shape(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'up' (onnx.ConvTranspose): output_shape must have 2 values (one per spatial dim), got 3}}
  %0 = onnx.ConvTranspose(%x, %w, %none) {output_shape = array<i64: 1, 10, 8>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>, none) -> tensor<*xf32> loc("up")
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ConvTranspose' (onnx.ConvTranspose): output_padding values must be non-negative, got [-1, 0]}}
  %0 = onnx.ConvTranspose(%x, %w, %none) {output_padding = array<i64: -1, 0>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @maxpool_kernel_required(%x: tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @+1 {{'onnx.MaxPool' op requires attribute 'kernel_shape'}}
  %0, %1 = onnx.MaxPool(%x) : (tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

func.func @maxpool_kernel_length(%x: tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @unknown {{node 'pool1' (onnx.MaxPool): kernel_shape must have 2 values (one per spatial dim), got 1}}
  %0, %1 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2>} : (tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) loc("pool1")
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

func.func @maxpool_storage_order(%x: tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @+1 {{node 'onnx.MaxPool' (onnx.MaxPool): storage_order must be 0 or 1, got 2}}
  %0, %1 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, storage_order = 2 : i64} : (tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

func.func @maxpool_ceil_mode(%x: tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @+1 {{node 'onnx.MaxPool' (onnx.MaxPool): ceil_mode must be 0 or 1, got 3}}
  %0, %1 = onnx.MaxPool(%x) {ceil_mode = 3 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

func.func @maxpool_kernel_values(%x: tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @+1 {{node 'onnx.MaxPool' (onnx.MaxPool): kernel_shape values must be positive, got [2, 0]}}
  %0, %1 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 0>} : (tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

func.func @maxpool_i32(%x: tensor<1x1x4x4xi32>) -> (tensor<*xi32>, tensor<*xi64>) {
  // expected-error @+1 {{'onnx.MaxPool' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 8-bit unsigned integer values}}
  %0, %1 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xi32>) -> (tensor<*xi32>, tensor<*xi64>)
  return %0, %1 : tensor<*xi32>, tensor<*xi64>
}

// -----

func.func @averagepool_count_include_pad(%x: tensor<1x1x4x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.AveragePool' (onnx.AveragePool): count_include_pad must be 0 or 1, got 2}}
  %0 = onnx.AveragePool(%x) {count_include_pad = 2 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @averagepool_dilations(%x: tensor<1x1x4x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.AveragePool' (onnx.AveragePool): dilations values must be positive, got [1, 0]}}
  %0 = onnx.AveragePool(%x) {dilations = array<i64: 1, 0>, kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @global_average_pool_rank(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.GlobalAveragePool' (onnx.GlobalAveragePool): X must have rank >= 3 (N, C and at least one spatial dim), got rank 2}}
  %0 = onnx.GlobalAveragePool(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
