// RUN: odt-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the onnx dialect. Errors name the ONNX node (the op's
// NameLoc) and its op; an op without a node name is named by its op name.
// A NameLoc without a file location (loc("fc1")) is reported at an unknown
// location, hence `@unknown` where a test pins the node name.

func.func @constant_type_mismatch() -> tensor<3xf32> {
  // expected-error @+1 {{'onnx.Constant' op value type 'tensor<2xf32>' differs from result type 'tensor<3xf32>'}}
  %0 = onnx.Constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @gemm_rank_a(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'fc1' (onnx.Gemm): A must have rank 2, got rank 3}}
  %0 = onnx.Gemm(%a, %b, %none) : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> tensor<*xf32> loc("fc1")
  return %0 : tensor<*xf32>
}

// -----

func.func @gemm_rank_b(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): B must have rank 2, got rank 1}}
  %0 = onnx.Gemm(%a, %b, %none) : (tensor<2x3xf32>, tensor<3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gemm_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): A and B must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.Gemm(%a, %b, %none) : (tensor<2x3xf32>, tensor<3x4xf64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gemm_c_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf16>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): A and C must have the same element type, got 'f32' and 'f16'}}
  %0 = onnx.Gemm(%a, %b, %c) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf16>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<1x2x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): C must have rank <= 2, got 3}}
  %0 = onnx.Gemm(%a, %b, %c) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x2x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gemm_trans_a(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): transA and transB must be 0 or 1}}
  %0 = onnx.Gemm(%a, %b, %none) {transA = 2 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gemm_trans_b(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): transA and transB must be 0 or 1}}
  %0 = onnx.Gemm(%a, %b, %none) {transB = -1 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Operand type constraints come from ODS: Gemm multiplies floats only.
func.func @gemm_integer(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<*xi32> {
  %none = onnx.NoValue
  // expected-error @+1 {{'onnx.Gemm' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = onnx.Gemm(%a, %b, %none) : (tensor<2x3xi32>, tensor<3x4xi32>, none) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

func.func @reduce_sum_axes_rank(%x: tensor<4x5xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<0> : tensor<1x1xi64>} : tensor<1x1xi64>
  // expected-error @+1 {{node 'onnx.ReduceSum' (onnx.ReduceSum): axes must have rank 1, got rank 2}}
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<4x5xf32>, tensor<1x1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_sum_axis_out_of_range(%x: tensor<4x5xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  // expected-error @+1 {{node 'onnx.ReduceSum' (onnx.ReduceSum): axes must be unique and within the rank of data}}
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @reduce_sum_negative_axis_out_of_range(%x: tensor<4x5xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<-3> : tensor<1xi64>} : tensor<1xi64>
  // expected-error @+1 {{node 'onnx.ReduceSum' (onnx.ReduceSum): axes must be unique and within the rank of data}}
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// -1 and 1 are the same axis of a rank-2 tensor.
func.func @reduce_sum_duplicate_axes(%x: tensor<4x5xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<[1, -1]> : tensor<2xi64>} : tensor<2xi64>
  // expected-error @+1 {{node 'onnx.ReduceSum' (onnx.ReduceSum): axes must be unique and within the rank of data}}
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @sce_loss_reduction(%s: tensor<?x10xf32>, %l: tensor<?xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'loss' (onnx.SoftmaxCrossEntropyLoss): reduction must be 'mean', 'sum' or 'none', got 'max'}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none) {reduction = "max"} : (tensor<?x10xf32>, tensor<?xi64>, none) -> (tensor<*xf32>, tensor<*xf32>) loc("loss")
  return %0#0 : tensor<*xf32>
}

// -----

func.func @sce_loss_scores_rank(%s: tensor<10xf32>, %l: tensor<i64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.SoftmaxCrossEntropyLoss' (onnx.SoftmaxCrossEntropyLoss): scores must have rank >= 2, got 1}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none) : (tensor<10xf32>, tensor<i64>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @sce_loss_labels_rank(%s: tensor<?x10xf32>, %l: tensor<?x10xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.SoftmaxCrossEntropyLoss' (onnx.SoftmaxCrossEntropyLoss): labels must have rank 1 (one less than scores), got 2}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none) : (tensor<?x10xf32>, tensor<?x10xi64>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @sce_loss_weights_rank(%s: tensor<?x10xf32>, %l: tensor<?xi64>, %w: tensor<1x10xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.SoftmaxCrossEntropyLoss' (onnx.SoftmaxCrossEntropyLoss): weights must have rank 1, got rank 2}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %w) : (tensor<?x10xf32>, tensor<?xi64>, tensor<1x10xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @sce_loss_weights_type(%s: tensor<?x10xf32>, %l: tensor<?xi64>, %w: tensor<10xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.SoftmaxCrossEntropyLoss' (onnx.SoftmaxCrossEntropyLoss): scores and weights must have the same element type, got 'f32' and 'f64'}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %w) : (tensor<?x10xf32>, tensor<?xi64>, tensor<10xf64>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

// Labels are class indices: int32 or int64.
func.func @sce_loss_float_labels(%s: tensor<?x10xf32>, %l: tensor<?xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{'onnx.SoftmaxCrossEntropyLoss' op operand #1 must be tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none) : (tensor<?x10xf32>, tensor<?xf32>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @sce_loss_grad_reduction(%dy: tensor<f32>, %lp: tensor<?x10xf32>, %l: tensor<?xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ms.SoftmaxCrossEntropyLossGrad' (onnx.ms.SoftmaxCrossEntropyLossGrad): reduction must be 'mean', 'sum' or 'none', got 'MEAN'}}
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %none) {reduction = "MEAN"} : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @sce_loss_grad_bias(%dy: tensor<f32>, %lp: tensor<?x10xf32>, %l: tensor<?xi64>, %bias: tensor<?x10xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ms.SoftmaxCrossEntropyLossGrad' (onnx.ms.SoftmaxCrossEntropyLossGrad): the bias input is not supported}}
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %bias) : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>, none, tensor<?x10xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @sce_loss_grad_labels_rank(%dy: tensor<f32>, %lp: tensor<?x10x4xf32>, %l: tensor<?xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ms.SoftmaxCrossEntropyLossGrad' (onnx.ms.SoftmaxCrossEntropyLossGrad): labels must have rank 2 (one less than scores), got 1}}
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %none) : (tensor<f32>, tensor<?x10x4xf32>, tensor<?xi64>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @relu_grad_element_types(%dy: tensor<4xf32>, %x: tensor<4xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.ReluGrad' (onnx.ms.ReluGrad): dY and X must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.ms.ReluGrad(%dy, %x) : (tensor<4xf32>, tensor<4xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @accumulator_dtype_mismatch(%buf: tensor<4xf32>, %v: tensor<4xf16>, %flag: tensor<1xi1>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulatorV2' (onnx.ms.InPlaceAccumulatorV2): buffer and value must have the same element type, got 'f32' and 'f16'}}
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %flag) : (tensor<4xf32>, tensor<4xf16>, tensor<1xi1>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @accumulator_flag_elements(%buf: tensor<4xf32>, %v: tensor<4xf32>, %flag: tensor<2xi1>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulatorV2' (onnx.ms.InPlaceAccumulatorV2): overwrite_flag must hold one element}}
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %flag) : (tensor<4xf32>, tensor<4xf32>, tensor<2xi1>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @adamw_adam_mode(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'adamw' (onnx.ms.AdamWOptimizer): adam_mode must be 0 or 1, got 2}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %w, %w, %w) {adam_mode = 2 : i64} : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) loc("adamw")
  return %0#1 : tensor<*xf32>
}

// -----

func.func @adamw_gradient_type(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4xf32>, %g: tensor<5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.AdamWOptimizer' (onnx.ms.AdamWOptimizer): gradients must have the type of its weight: 'tensor<5xf32>' vs 'tensor<4xf32>'}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %g, %w, %w) : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

// The second group member is checked against its own weight.
func.func @adamw_moment_type(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w0: tensor<4xf32>, %w1: tensor<2x2xf32>, %m1: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.AdamWOptimizer' (onnx.ms.AdamWOptimizer): second-order moments must have the type of its weight: 'tensor<2x3xf32>' vs 'tensor<2x2xf32>'}}
  %0:7 = onnx.ms.AdamWOptimizer(%lr, %step, %w0, %w1, %w0, %w1, %w0, %w1, %w0, %m1) : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x3xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

// Like ORT's kernels, the optimizers update float32 state only.
func.func @adamw_f64_weights(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4xf64>) -> tensor<*xf64> {
  // expected-error @+1 {{'onnx.ms.AdamWOptimizer' op operand #2 must be variadic of tensor of 32-bit float values, but got 'tensor<4xf64>'}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %w, %w, %w) : (tensor<1xf32>, tensor<1xi64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<*xi1>, tensor<*xf64>, tensor<*xf64>, tensor<*xf64>)
  return %0#1 : tensor<*xf64>
}

// -----

func.func @adamw_lr_scalar(%lr: tensor<2xf32>, %step: tensor<1xi64>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.AdamWOptimizer' (onnx.ms.AdamWOptimizer): learning rate must hold one element}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %w, %w, %w) : (tensor<2xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @adamw_step_scalar(%lr: tensor<1xf32>, %step: tensor<1x2xi64>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.AdamWOptimizer' (onnx.ms.AdamWOptimizer): step must hold one element}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %w, %w, %w) : (tensor<1xf32>, tensor<1x2xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

// Four sequences of one length: five sequence operands cannot be split
// (integer division would silently drop the last one).
func.func @adamw_group_sizes(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.AdamWOptimizer' (onnx.ms.AdamWOptimizer): 5 sequence operands do not split into 4 sequences of one length}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %w, %w, %w, %w) : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

// Two weights need the flag and three updated values per weight.
func.func @adamw_result_count(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w0: tensor<4xf32>, %w1: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.AdamWOptimizer' (onnx.ms.AdamWOptimizer): expected 7 results for 2 weights, got 4}}
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w0, %w1, %w0, %w1, %w0, %w1, %w0, %w1) : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<*xi1>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @sgd_gradient_type(%lr: tensor<1xf32>, %w: tensor<4x3xf32>, %g: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.SGDOptimizerV2' (onnx.ms.SGDOptimizerV2): gradients must have the type of its weight: 'tensor<3x4xf32>' vs 'tensor<4x3xf32>'}}
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %g) : (tensor<1xf32>, tensor<4x3xf32>, tensor<3x4xf32>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @sgd_lr_scalar(%lr: tensor<3xf32>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.SGDOptimizerV2' (onnx.ms.SGDOptimizerV2): learning rate must hold one element}}
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %w) : (tensor<3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @sgd_lr_type(%lr: tensor<1xf64>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.ms.SGDOptimizerV2' op operand #0 must be tensor of 32-bit float values}}
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %w) : (tensor<1xf64>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @sgd_group_sizes(%lr: tensor<1xf32>, %w: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.SGDOptimizerV2' (onnx.ms.SGDOptimizerV2): 3 sequence operands do not split into 2 sequences of one length}}
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %w, %w) : (tensor<1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @sgd_result_count(%lr: tensor<1xf32>, %w0: tensor<4xf32>, %w1: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.SGDOptimizerV2' (onnx.ms.SGDOptimizerV2): expected 3 results for 2 weights, got 2}}
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w0, %w1, %w0, %w1) : (tensor<1xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @sgd_f16_weights(%lr: tensor<1xf32>, %w: tensor<4xf16>) -> tensor<*xf16> {
  // expected-error @+1 {{'onnx.ms.SGDOptimizerV2' op operand #1 must be variadic of tensor of 32-bit float values, but got 'tensor<4xf16>'}}
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %w) : (tensor<1xf32>, tensor<4xf16>, tensor<4xf16>) -> (tensor<*xi1>, tensor<*xf16>)
  return %0#1 : tensor<*xf16>
}
