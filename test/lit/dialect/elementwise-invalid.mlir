// RUN: odt-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the Elementwise family: each names the node (its
// NameLoc, reported at an unknown location) or, without one, the op.

func.func @add_element_types(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'add1' (onnx.Add): A and B must have the same element type, got 'f32' and 'i64'}}
  %0 = onnx.Add(%a, %b) : (tensor<3xf32>, tensor<3xi64>) -> tensor<*xf32> loc("add1")
  return %0 : tensor<*xf32>
}

// -----

func.func @div_element_types(%a: tensor<3xui8>, %b: tensor<3xi8>) -> tensor<*xui8> {
  // expected-error @+1 {{node 'onnx.Div' (onnx.Div): A and B must have the same element type, got 'ui8' and 'i8'}}
  %0 = onnx.Div(%a, %b) : (tensor<3xui8>, tensor<3xi8>) -> tensor<*xui8>
  return %0 : tensor<*xui8>
}

// -----

func.func @less_element_types(%a: tensor<3xf32>, %b: tensor<3xf16>) -> tensor<*xi1> {
  // expected-error @+1 {{node 'onnx.Less' (onnx.Less): A and B must have the same element type, got 'f32' and 'f16'}}
  %0 = onnx.Less(%a, %b) : (tensor<3xf32>, tensor<3xf16>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

// Operand type constraints come from ODS: Add takes no booleans...
func.func @add_bool(%a: tensor<3xi1>) -> tensor<*xi1> {
  // expected-error @+1 {{'onnx.Add' op operand #0 must be tensor of}}
  %0 = onnx.Add(%a, %a) : (tensor<3xi1>, tensor<3xi1>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

// ... Sqrt only floats, Neg no unsigned integers, Not only booleans.
func.func @sqrt_int(%a: tensor<3xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'onnx.Sqrt' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = onnx.Sqrt(%a) : (tensor<3xi32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

func.func @neg_unsigned(%a: tensor<3xui32>) -> tensor<*xui32> {
  // expected-error @+1 {{'onnx.Neg' op operand #0 must be tensor of}}
  %0 = onnx.Neg(%a) : (tensor<3xui32>) -> tensor<*xui32>
  return %0 : tensor<*xui32>
}

// -----

func.func @not_float(%a: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Not' op operand #0 must be tensor of 1-bit signless integer values}}
  %0 = onnx.Not(%a) : (tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @where_condition(%c: tensor<3xi8>, %x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Where' op operand #0 must be tensor of 1-bit signless integer values}}
  %0 = onnx.Where(%c, %x, %x) : (tensor<3xi8>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @where_element_types(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Where' (onnx.Where): X and Y must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.Where(%c, %x, %y) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @max_no_inputs() -> tensor<*xf32> {
  // expected-error @unknown {{node 'max0' (onnx.Max): needs at least one input}}
  %0 = onnx.Max() : () -> tensor<*xf32> loc("max0")
  return %0 : tensor<*xf32>
}

// -----

func.func @min_element_types(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Min' (onnx.Min): all inputs must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.Min(%a, %b, %c) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @clip_bound_type(%x: tensor<3xf32>, %lo: tensor<f64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Clip' (onnx.Clip): input, min and max must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.Clip(%x, %lo, %none) : (tensor<3xf32>, tensor<f64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @clip_bound_not_scalar(%x: tensor<3xf32>, %hi: tensor<2xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Clip' (onnx.Clip): max must be a scalar (one element), got 'tensor<2xf32>'}}
  %0 = onnx.Clip(%x, %none, %hi) : (tensor<3xf32>, none, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gelu_approximate(%x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Gelu' (onnx.Gelu): approximate must be "none" or "tanh", got "erf"}}
  %0 = onnx.Gelu(%x) {approximate = "erf"} : (tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @cast_to_string(%x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'c' (onnx.Cast): cannot cast to STRING (odt casts between bool, [u]int8..64, float16, bfloat16, float and double)}}
  %0 = onnx.Cast(%x) {to = 8 : i64} : (tensor<3xf32>) -> tensor<*xf32> loc("c")
  return %0 : tensor<*xf32>
}

// -----

func.func @cast_to_float8(%x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Cast' (onnx.Cast): cannot cast to FLOAT8E4M3FN}}
  %0 = onnx.Cast(%x) {to = 17 : i64} : (tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @cast_to_unknown(%x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Cast' (onnx.Cast): cannot cast to data type 99}}
  %0 = onnx.Cast(%x) {to = 99 : i64} : (tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @cast_saturate(%x: tensor<3xf32>) -> tensor<*xf16> {
  // expected-error @+1 {{node 'onnx.Cast' (onnx.Cast): saturate must be 0 or 1, got 2}}
  %0 = onnx.Cast(%x) {to = 10 : i64, saturate = 2 : i64} : (tensor<3xf32>) -> tensor<*xf16>
  return %0 : tensor<*xf16>
}

// -----

func.func @cast_without_to(%x: tensor<3xf32>) -> tensor<*xf16> {
  // expected-error @+1 {{'onnx.Cast' op requires attribute 'to'}}
  %0 = onnx.Cast(%x) : (tensor<3xf32>) -> tensor<*xf16>
  return %0 : tensor<*xf16>
}

// -----

func.func @dropout_ratio_shape(%x: tensor<3xf32>, %r: tensor<2xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Dropout' (onnx.Dropout): ratio must be a scalar (one element), got 'tensor<2xf32>'}}
  %0:2 = onnx.Dropout(%x, %r, %none) : (tensor<3xf32>, tensor<2xf32>, none) -> (tensor<*xf32>, tensor<*xi1>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @dropout_ratio_range(%x: tensor<3xf32>, %t: tensor<i1>) -> tensor<*xf32> {
  %r = onnx.Constant {value = dense<1.5> : tensor<f32>} : tensor<f32>
  // expected-error @+1 {{node 'onnx.Dropout' (onnx.Dropout): ratio must be in [0, 1), got 1.5}}
  %0:2 = onnx.Dropout(%x, %r, %t) : (tensor<3xf32>, tensor<f32>, tensor<i1>) -> (tensor<*xf32>, tensor<*xi1>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @dropout_training_mode_type(%x: tensor<3xf32>, %r: tensor<f32>, %t: tensor<f32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Dropout' op operand #2 must be tensor of 1-bit signless integer values or none type}}
  %0:2 = onnx.Dropout(%x, %r, %t) : (tensor<3xf32>, tensor<f32>, tensor<f32>) -> (tensor<*xf32>, tensor<*xi1>)
  return %0#0 : tensor<*xf32>
}
