// RUN: odt-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the Reduction family: operands and attributes only
// (results are untyped when the importer verifies a node).

func.func @reduce_sum_axes_attribute(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ReduceSum' (onnx.ReduceSum): ReduceSum takes its axes as an input (opset 13 and later), not as an attribute}}
  %0 = onnx.ReduceSum(%x, %none) {axes = array<i64: 0>} : (tensor<3x4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_mean_both_axes(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
  // expected-error @+1 {{node 'onnx.ReduceMean' (onnx.ReduceMean): axes are given both as an attribute and as an input}}
  %0 = onnx.ReduceMean(%x, %axes) {axes = array<i64: 0>} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_max_axis_range(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ReduceMax' (onnx.ReduceMax): axes must be unique and within the rank of data (2)}}
  %0 = onnx.ReduceMax(%x, %none) {axes = array<i64: 2>} : (tensor<3x4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_min_repeated_axis(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<[1, -1]> : tensor<2xi64>} : tensor<2xi64>
  // expected-error @+1 {{node 'onnx.ReduceMin' (onnx.ReduceMin): axes must be unique and within the rank of data (2)}}
  %0 = onnx.ReduceMin(%x, %axes) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_l2_keepdims(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ReduceL2' (onnx.ReduceL2): keepdims must be 0 or 1, got 2}}
  %0 = onnx.ReduceL2(%x, %none) {keepdims = 2 : i64} : (tensor<3x4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_log_sum_exp_axes_rank(%x: tensor<3x4xf32>, %axes: tensor<1x1xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ReduceLogSumExp' (onnx.ReduceLogSumExp): axes must have rank 1, got rank 2}}
  %0 = onnx.ReduceLogSumExp(%x, %axes) : (tensor<3x4xf32>, tensor<1x1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ODS: ReduceMean does not take booleans (ReduceMax and ReduceMin do).
func.func @reduce_mean_bool(%x: tensor<3x4xi1>) -> tensor<*xi1> {
  %none = onnx.NoValue
  // expected-error @+1 {{'onnx.ReduceMean' op operand #0 must be tensor of}}
  %0 = onnx.ReduceMean(%x, %none) : (tensor<3x4xi1>, none) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

func.func @argmax_axis(%x: tensor<3x4xf32>) -> tensor<*xi64> {
  // expected-error @+1 {{node 'onnx.ArgMax' (onnx.ArgMax): axis -3 is out of range for data of rank 2}}
  %0 = onnx.ArgMax(%x) {axis = -3 : i64} : (tensor<3x4xf32>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

func.func @argmax_select_last_index(%x: tensor<3x4xf32>) -> tensor<*xi64> {
  // expected-error @+1 {{node 'onnx.ArgMax' (onnx.ArgMax): select_last_index must be 0 or 1, got 3}}
  %0 = onnx.ArgMax(%x) {select_last_index = 3 : i64} : (tensor<3x4xf32>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

func.func @top_k_negative(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %k = onnx.Constant {value = dense<-1> : tensor<1xi64>} : tensor<1xi64>
  // expected-error @+1 {{node 'onnx.TopK' (onnx.TopK): K must not be negative, got -1}}
  %0:2 = onnx.TopK(%x, %k) : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @top_k_k_shape(%x: tensor<3x4xf32>, %k: tensor<2xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.TopK' (onnx.TopK): K must be a one-element 1-D tensor, got 'tensor<2xi64>'}}
  %0:2 = onnx.TopK(%x, %k) : (tensor<3x4xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @top_k_largest(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.TopK' (onnx.TopK): largest must be 0 or 1, got -1}}
  %0:2 = onnx.TopK(%x, %k) {largest = -1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @cumsum_axis_range(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %axis = onnx.Constant {value = dense<2> : tensor<i64>} : tensor<i64>
  // expected-error @+1 {{node 'onnx.CumSum' (onnx.CumSum): axis must lie within the rank of x (2)}}
  %0 = onnx.CumSum(%x, %axis) : (tensor<3x4xf32>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @cumsum_axis_shape(%x: tensor<3x4xf32>, %axis: tensor<2xi32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.CumSum' (onnx.CumSum): axis must be a scalar, got 'tensor<2xi32>'}}
  %0 = onnx.CumSum(%x, %axis) : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @softmax_axis(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Softmax' (onnx.Softmax): axis 2 is out of range for input of rank 2}}
  %0 = onnx.Softmax(%x) {axis = 2 : i64} : (tensor<3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ODS: Softmax takes floats only.
func.func @log_softmax_integer(%x: tensor<3x4xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'onnx.LogSoftmax' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = onnx.LogSoftmax(%x) : (tensor<3x4xi32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

func.func @layer_norm_stash_type(%x: tensor<3x4xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.LayerNormalization' (onnx.LayerNormalization): stash_type must be 1 (float), 10 (float16), 11 (double) or 16 (bfloat16), got 7}}
  %0:3 = onnx.LayerNormalization(%x, %s, %none) {stash_type = 7 : i64} : (tensor<3x4xf32>, tensor<4xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @layer_norm_scale_type(%x: tensor<3x4xf32>, %s: tensor<4xf16>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.LayerNormalization' (onnx.LayerNormalization): X and Scale must have the same element type, got 'f32' and 'f16'}}
  %0:3 = onnx.LayerNormalization(%x, %s, %none) : (tensor<3x4xf32>, tensor<4xf16>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.BatchNormalization' (onnx.BatchNormalization): X must have rank >= 2 ([N, C, ...]), got 1}}
  %0:3 = onnx.BatchNormalization(%x, %s, %s, %s, %s) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @batch_norm_mean_rank(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %m: tensor<1x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.BatchNormalization' (onnx.BatchNormalization): input_mean must have rank 1, got rank 2}}
  %0:3 = onnx.BatchNormalization(%x, %s, %s, %m, %s) : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @batch_norm_training_mode(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.BatchNormalization' (onnx.BatchNormalization): training_mode must be 0 or 1, got 2}}
  %0:3 = onnx.BatchNormalization(%x, %s, %s, %s, %s) {training_mode = 2 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @nll_reduction(%x: tensor<3x5xf32>, %t: tensor<3xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.NegativeLogLikelihoodLoss' (onnx.NegativeLogLikelihoodLoss): reduction must be 'mean', 'sum' or 'none', got 'max'}}
  %0 = onnx.NegativeLogLikelihoodLoss(%x, %t, %none) {reduction = "max"} : (tensor<3x5xf32>, tensor<3xi64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @nll_target_rank(%x: tensor<3x5x2xf32>, %t: tensor<3xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.NegativeLogLikelihoodLoss' (onnx.NegativeLogLikelihoodLoss): target must have rank 2 (one less than input), got 1}}
  %0 = onnx.NegativeLogLikelihoodLoss(%x, %t, %none) : (tensor<3x5x2xf32>, tensor<3xi64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @nll_weight_type(%x: tensor<3x5xf32>, %t: tensor<3xi32>, %w: tensor<5xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.NegativeLogLikelihoodLoss' (onnx.NegativeLogLikelihoodLoss): input and weight must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.NegativeLogLikelihoodLoss(%x, %t, %w) : (tensor<3x5xf32>, tensor<3xi32>, tensor<5xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @einsum_terms(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Einsum' (onnx.Einsum): equation 'ij,jk->ik': the equation has 2 input terms for 1 inputs}}
  %0 = onnx.Einsum(%a) {equation = "ij,jk->ik"} : (tensor<3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @einsum_rank(%a: tensor<3x4x5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Einsum' (onnx.Einsum): equation 'ij->i': input 0 has rank 3, its term 'ij' names 2 dims}}
  %0 = onnx.Einsum(%a) {equation = "ij->i"} : (tensor<3x4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @einsum_output_label(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Einsum' (onnx.Einsum): equation 'ij->k': output label 'k' is in no input term}}
  %0 = onnx.Einsum(%a) {equation = "ij->k"} : (tensor<3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @einsum_character(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Einsum' (onnx.Einsum): equation 'i1->i': unexpected character '1'}}
  %0 = onnx.Einsum(%a) {equation = "i1->i"} : (tensor<3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @einsum_missing_ellipsis(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Einsum' (onnx.Einsum): equation '...ij->ij': the output must contain '...' when inputs have broadcast dims}}
  %0 = onnx.Einsum(%a) {equation = "...ij->ij"} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @einsum_types(%a: tensor<3x4xf32>, %b: tensor<4xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Einsum' (onnx.Einsum): the inputs must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.Einsum(%a, %b) {equation = "ij,j->i"} : (tensor<3x4xf32>, tensor<4xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
