// RUN: odt-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the com.microsoft training ops; each names the node
// (here the op name: no NameLoc) and the op.

func.func @grad_element_types(%dy: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.SigmoidGrad' (onnx.ms.SigmoidGrad): dY and Y must have the same element type, got 'f32' and 'f64'}}
  %0 = onnx.ms.SigmoidGrad(%dy, %y) : (tensor<4xf32>, tensor<4xf64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @softmax_grad_axis(%dy: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.SoftmaxGrad_13' (onnx.ms.SoftmaxGrad_13): axis 2 is out of range for rank 2}}
  %0 = onnx.ms.SoftmaxGrad_13(%dy, %dy) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bias_gelu_rank(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.BiasGelu' (onnx.ms.BiasGelu): the bias must have rank 1, got rank 2}}
  %0 = onnx.ms.BiasGelu(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @layer_norm_grad_scale(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %m: tensor<2x3x1xf32>) {
  // expected-error @+1 {{node 'onnx.ms.LayerNormalizationGrad' (onnx.ms.LayerNormalizationGrad): scale must have rank 1, got rank 2}}
  %0:3 = onnx.ms.LayerNormalizationGrad(%x, %x, %s, %m, %m) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @layer_norm_grad_stat_rank(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>, %m: tensor<2xf32>) {
  // expected-error @+1 {{node 'onnx.ms.LayerNormalizationGrad' (onnx.ms.LayerNormalizationGrad): mean must have rank 2 or 3, got 1}}
  %0:3 = onnx.ms.LayerNormalizationGrad(%x, %x, %s, %m, %m) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{node 'onnx.ms.BatchNormInternal' (onnx.ms.BatchNormInternal): X must have rank >= 2 ([N, C, ...]), got 1}}
  %0:5 = onnx.ms.BatchNormInternal(%x, %x, %x, %x, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @conv_grad_kernel(%dy: tensor<1x4x4x4xf32>, %x: tensor<1x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{node 'onnx.ms.ConvGrad' (onnx.ms.ConvGrad): kernel_shape differs from W's dims}}
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {kernel_shape = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>, tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @max_pool_grad_storage_order(%dy: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.MaxPoolGrad' (onnx.MaxPoolGrad): storage_order 1 (column-major indices) is not supported}}
  %0 = onnx.MaxPoolGrad(%dy, %i) {kernel_shape = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @average_pool_grad_dilations(%dy: tensor<1x1x2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.AveragePoolGrad' (onnx.AveragePoolGrad): dilations other than 1 are not supported}}
  %0 = onnx.AveragePoolGrad(%dy) {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gather_grad_shape_length(%shape: tensor<?xi64>, %i: tensor<3xi64>, %dy: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.GatherGrad' (onnx.ms.GatherGrad): shape must have a static length}}
  %0 = onnx.ms.GatherGrad(%shape, %i, %dy) : (tensor<?xi64>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @gather_grad_dy_rank(%shape: tensor<2xi64>, %i: tensor<3xi64>, %dy: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.GatherGrad' (onnx.ms.GatherGrad): dY must have rank 2 (data rank - 1 + indices rank), got 1}}
  %0 = onnx.ms.GatherGrad(%shape, %i, %dy) : (tensor<2xi64>, tensor<3xi64>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @dropout_grad_ratio(%dy: tensor<4xf32>, %mask: tensor<4xi1>, %r: tensor<2xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ms.DropoutGrad' (onnx.ms.DropoutGrad): ratio must hold one element}}
  %0 = onnx.ms.DropoutGrad(%dy, %mask, %r, %none) : (tensor<4xf32>, tensor<4xi1>, tensor<2xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @fused_matmul_trans_batch(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.FusedMatMul' (onnx.ms.FusedMatMul): transBatchA and transBatchB are not supported}}
  %0 = onnx.ms.FusedMatMul(%a, %a) {transBatchA = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @fused_matmul_rank(%a: tensor<4xf32>, %b: tensor<4x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.FusedMatMul' (onnx.ms.FusedMatMul): A must have rank >= 2, got 1}}
  %0 = onnx.ms.FusedMatMul(%a, %b) : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @broadcast_gradient_args_mismatch() -> (tensor<*xi64>, tensor<*xi64>) {
  %a = onnx.Constant {value = dense<[2, 3]> : tensor<2xi64>} : tensor<2xi64>
  %b = onnx.Constant {value = dense<[4]> : tensor<1xi64>} : tensor<1xi64>
  // expected-error @+1 {{node 'onnx.ms.BroadcastGradientArgs' (onnx.ms.BroadcastGradientArgs): the shapes cannot broadcast}}
  %0:2 = onnx.ms.BroadcastGradientArgs(%a, %b) : (tensor<2xi64>, tensor<1xi64>) -> (tensor<*xi64>, tensor<*xi64>)
  return %0#0, %0#1 : tensor<*xi64>, tensor<*xi64>
}

// -----

func.func @reduce_sum_training_axes(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %axes = onnx.Constant {value = dense<[1, -1]> : tensor<2xi64>} : tensor<2xi64>
  // expected-error @+1 {{node 'onnx.ms.ReduceSumTraining' (onnx.ms.ReduceSumTraining): axes must be unique and within the rank of data}}
  %0 = onnx.ms.ReduceSumTraining(%x, %axes) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @scale_elements(%x: tensor<4xf32>, %s: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.Scale' (onnx.ms.Scale): scale must hold one element}}
  %0 = onnx.ms.Scale(%x, %s) : (tensor<4xf32>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @concat_training_rank(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{node 'onnx.ms.ConcatTraining' (onnx.ms.ConcatTraining): every input must have rank 2, got rank 1}}
  %0:2 = onnx.ms.ConcatTraining(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @clip_norm_type(%g: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.InplaceClipGradNorm' (onnx.ms.InplaceClipGradNorm): norm_type must be 'fro', got 'l1'}}
  %0 = onnx.ms.InplaceClipGradNorm(%g) {norm_type = "l1"} : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @accumulator_signal(%b: tensor<4xf32>, %s: tensor<2xi1>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulator' (onnx.ms.InPlaceAccumulator): update_signal must hold one element}}
  %0 = onnx.ms.InPlaceAccumulator(%b, %b, %s) : (tensor<4xf32>, tensor<4xf32>, tensor<2xi1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @loss_internal_output_type(%s: tensor<2x3xf32>, %l: tensor<2xi64>) {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ms.SoftmaxCrossEntropyLossInternal' (onnx.ms.SoftmaxCrossEntropyLossInternal): output_type 7 is not a float type}}
  %0:2 = onnx.ms.SoftmaxCrossEntropyLossInternal(%s, %l, %none, %none) {output_type = 7 : i64} : (tensor<2x3xf32>, tensor<2xi64>, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}
