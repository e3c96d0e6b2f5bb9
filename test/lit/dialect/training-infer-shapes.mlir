// RUN: odt-opt %s --split-input-file --odt-infer-shapes --verify-diagnostics | FileCheck %s

// Shape inference of the com.microsoft training ops: result shapes and
// element types, and the dims they unify.

// Elementwise gradients unify dY with the forward value.
// CHECK-LABEL: func.func @gelu_grad
// CHECK-SAME:    -> (tensor<?x8xf32> {onnx.dims = ["N", 8]})
// CHECK:         onnx.ms.GeluGrad(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
func.func @gelu_grad(%dy: tensor<?x8xf32> {onnx.dims = ["N", 8]}, %x: tensor<?x?xf32> {onnx.dims = ["N", "K"]}) -> tensor<*xf32> {
  %0 = onnx.ms.GeluGrad(%dy, %x) : (tensor<?x8xf32>, tensor<?x?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// LayerNormalizationGrad: scale has the normalized dims, the statistics one
// value per row; scale_grad and bias_grad are shaped like scale.
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-SAME:    (%{{.*}}: tensor<?x8xf32> {onnx.dims = ["N", 8]}, %{{.*}}: tensor<?x8xf32> {onnx.dims = ["N", 8]}, %{{.*}}: tensor<8xf32> {onnx.dims = [8]}, %{{.*}}: tensor<?x1xf32> {onnx.dims = ["N", 1]})
// CHECK-SAME:    -> (tensor<?x8xf32> {onnx.dims = ["N", 8]}, tensor<8xf32> {onnx.dims = [8]}, tensor<8xf32> {onnx.dims = [8]})
func.func @layer_norm_grad(%dy: tensor<?x8xf32> {onnx.dims = ["N", 8]}, %x: tensor<?x?xf32> {onnx.dims = ["N", "K"]},
                           %s: tensor<?xf32> {onnx.dims = ["K"]}, %m: tensor<?x?xf32> {onnx.dims = ["M", "one"]})
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0:3 = onnx.ms.LayerNormalizationGrad(%dy, %x, %s, %m, %m) : (tensor<?x8xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1, %0#2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// SimplifiedLayerNormalization's inv_std_var keeps the normalized dims as 1s.
// CHECK-LABEL: func.func @simplified_layer_norm
// CHECK-SAME:    -> (tensor<?x3x4xf32> {onnx.dims = ["N", 3, 4]}, tensor<?x1x1xf32> {onnx.dims = ["N", 1, 1]})
func.func @simplified_layer_norm(%x: tensor<?x3x4xf32> {onnx.dims = ["N", 3, 4]}, %s: tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0:2 = onnx.SimplifiedLayerNormalization(%x, %s) {axis = 1 : i64} : (tensor<?x3x4xf32>, tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// BatchNormInternal: every statistic is per channel.
// CHECK-LABEL: func.func @batch_norm_internal
// CHECK-SAME:    -> (tensor<?x4x5x5xf32> {onnx.dims = ["N", 4, 5, 5]}, tensor<4xf32> {onnx.dims = [4]}, tensor<4xf32> {onnx.dims = [4]}, tensor<4xf32> {onnx.dims = [4]}, tensor<4xf32> {onnx.dims = [4]})
func.func @batch_norm_internal(%x: tensor<?x4x5x5xf32> {onnx.dims = ["N", 4, 5, 5]}, %c: tensor<?xf32> {onnx.dims = ["C"]})
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0:5 = onnx.ms.BatchNormInternal(%x, %c, %c, %c, %c) : (tensor<?x4x5x5xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// ConvGrad: dY's batch and filters bind to X's and W's; dB is [M].
// CHECK-LABEL: func.func @conv_grad
// CHECK-SAME:    -> (tensor<?x3x7x7xf32> {onnx.dims = ["B", 3, 7, 7]}, tensor<4x3x3x3xf32> {onnx.dims = [4, 3, 3, 3]}, tensor<4xf32> {onnx.dims = [4]})
func.func @conv_grad(%dy: tensor<?x?x4x4xf32> {onnx.dims = ["B", "M", 4, 4]}, %x: tensor<?x3x7x7xf32> {onnx.dims = ["N", 3, 7, 7]},
                     %w: tensor<4x3x3x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x?x4x4xf32>, tensor<?x3x7x7xf32>, tensor<4x3x3x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1, %0#2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @conv_grad_output_dims(%dy: tensor<1x4x5x5xf32>, %x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // expected-error @+1 {{node 'onnx.ms.ConvGrad' (onnx.ms.ConvGrad): dY's spatial dims must be Conv's output's: 5 vs 4}}
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1, %0#2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Pooling gradients without the forward op: with stride 2, two input sizes
// pool to each output size (6 and 7 to 3 for MaxPool k3 s2; 5 and 6 for
// AveragePool k3 s2 pads 1), so dX's spatial dims are symbols of their own,
// bound by what reads dX (here a ReluGrad of a 6x6 activation), and the
// smallest such size when nothing does (the MaxPoolGrad returned as it is:
// 7); with stride 1 the size is the one input that pools to dY's
// (5 = 3 + 3 - 1).
// CHECK-LABEL: func.func @pool_grads
// CHECK-SAME:    -> (tensor<?x2x7x7xf32> {onnx.dims = ["N", 2, 7, 7]}, tensor<?x2x6x6xf32> {onnx.dims = ["N", 2, 6, 6]}, tensor<?x2x5x5xf32> {onnx.dims = ["N", 2, 5, 5]})
func.func @pool_grads(%dy: tensor<?x2x3x3xf32> {onnx.dims = ["N", 2, 3, 3]}, %i: tensor<?x2x3x3xi64> {onnx.dims = ["N", 2, 3, 3]}, %x: tensor<?x2x6x6xf32> {onnx.dims = ["N", 2, 6, 6]}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = onnx.MaxPoolGrad(%dy, %i) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x2x3x3xf32>, tensor<?x2x3x3xi64>) -> tensor<*xf32>
  %1 = onnx.AveragePoolGrad(%dy) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x2x3x3xf32>) -> tensor<*xf32>
  %2 = onnx.ms.ReluGrad(%1, %x) : (tensor<*xf32>, tensor<?x2x6x6xf32>) -> tensor<*xf32>
  %3 = onnx.AveragePoolGrad(%dy) {kernel_shape = array<i64: 3, 3>} : (tensor<?x2x3x3xf32>) -> tensor<*xf32>
  return %0, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// GatherGrad: dX has the dims of a constant shape; dY binds to Gather's
// output shape [indices..., 8].
// CHECK-LABEL: func.func @gather_grad
// CHECK-SAME:    (%{{.*}}: tensor<?x4xi64> {onnx.dims = ["N", 4]}, %{{.*}}: tensor<?x4x8xf32> {onnx.dims = ["N", 4, 8]})
// CHECK-SAME:    -> (tensor<20x8xf32> {onnx.dims = [20, 8]})
func.func @gather_grad(%i: tensor<?x4xi64> {onnx.dims = ["N", 4]}, %dy: tensor<?x?x?xf32> {onnx.dims = ["A", "B", "C"]}) -> tensor<*xf32> {
  %shape = onnx.Constant {value = dense<[20, 8]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.ms.GatherGrad(%shape, %i, %dy) : (tensor<2xi64>, tensor<?x4xi64>, tensor<?x?x?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A shape not known at compile time gives fresh dims, read at run time.
// CHECK-LABEL: func.func @slice_grad_runtime_shape
// CHECK-SAME:    -> (tensor<?x?xf32> {onnx.dims = ["onnx.ms.SliceGrad_dX_dim0", "onnx.ms.SliceGrad_dX_dim1"]})
func.func @slice_grad_runtime_shape(%dy: tensor<2x3xf32>, %shape: tensor<2xi64>, %s: tensor<1xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  %0 = onnx.ms.SliceGrad(%dy, %shape, %s, %s, %none, %none) : (tensor<2x3xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// BroadcastGradientArgs over known shapes has results of known lengths, and
// ReduceSumTraining reads its axes at compile time: [2, 1, 4] against [3, 1]
// reduces a over axis 1 and b over axes 2 and 0.
// CHECK-LABEL: func.func @broadcast_reduce
// CHECK:         onnx.ms.BroadcastGradientArgs(%{{.*}}, %{{.*}}) : (tensor<3xi64>, tensor<2xi64>) -> (tensor<1xi64>, tensor<2xi64>)
// CHECK:         onnx.ms.ReduceSumTraining(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
// CHECK:         onnx.ms.ReduceSumTraining(%{{.*}}, %{{.*}}) {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
func.func @broadcast_reduce(%dy: tensor<2x3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %a = onnx.Constant {value = dense<[2, 1, 4]> : tensor<3xi64>} : tensor<3xi64>
  %b = onnx.Constant {value = dense<[3, 1]> : tensor<2xi64>} : tensor<2xi64>
  %0:2 = onnx.ms.BroadcastGradientArgs(%a, %b) : (tensor<3xi64>, tensor<2xi64>) -> (tensor<*xi64>, tensor<*xi64>)
  %1 = onnx.ms.ReduceSumTraining(%dy, %0#0) : (tensor<2x3x4xf32>, tensor<*xi64>) -> tensor<*xf32>
  %2 = onnx.ms.ReduceSumTraining(%dy, %0#1) {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %1, %2 : tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @reduce_sum_training_runtime_axes(%x: tensor<2x3xf32>, %axes: tensor<1xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.ms.ReduceSumTraining' (onnx.ms.ReduceSumTraining): axes must be known at compile time (a constant or BroadcastGradientArgs of known shapes)}}
  %0 = onnx.ms.ReduceSumTraining(%x, %axes) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// FusedMatMul: transposes of the last two dims, numpy batch broadcasting.
// CHECK-LABEL: func.func @fused_matmul
// CHECK-SAME:    -> (tensor<2x?x5xf32> {onnx.dims = [2, "S", 5]})
func.func @fused_matmul(%a: tensor<1x8x?xf32> {onnx.dims = [1, 8, "S"]}, %b: tensor<2x5x?xf32> {onnx.dims = [2, 5, "K"]}) -> tensor<*xf32> {
  %0 = onnx.ms.FusedMatMul(%a, %b) {transA = 1 : i64, transB = 1 : i64} : (tensor<1x8x?xf32>, tensor<2x5x?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ConcatTraining adds the lengths along axis; SplitTraining takes them back
// from it.
// CHECK-LABEL: func.func @concat_split
// CHECK-SAME:    -> (tensor<?x8xf32> {onnx.dims = ["N", 8]}, tensor<2xi64> {onnx.dims = [2]}, tensor<?x3xf32> {onnx.dims = ["N", 3]}, tensor<?x5xf32> {onnx.dims = ["N", 5]})
func.func @concat_split(%a: tensor<?x3xf32> {onnx.dims = ["N", 3]}, %b: tensor<?x5xf32> {onnx.dims = ["M", 5]})
    -> (tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>) {
  %0:2 = onnx.ms.ConcatTraining(%a, %b) {axis = -1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  %1:2 = onnx.ms.SplitTraining(%0#0, %0#1) {axis = 1 : i64} : (tensor<*xf32>, tensor<*xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>
}

// -----

// The loss with an ignore_index input: a scalar for "mean", labels-shaped
// for "none"; the gradient is shaped like log_prob.
// CHECK-LABEL: func.func @loss_internal
// CHECK-SAME:    -> (tensor<?xf32> {onnx.dims = ["N"]}, tensor<?x10xf32> {onnx.dims = ["N", 10]}, tensor<?x10xf32> {onnx.dims = ["N", 10]})
func.func @loss_internal(%s: tensor<?x10xf32> {onnx.dims = ["N", 10]}, %l: tensor<?xi64> {onnx.dims = ["M"]}, %ii: tensor<i64>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0:2 = onnx.ms.SoftmaxCrossEntropyLossInternal(%s, %l, %none, %ii) {reduction = "none"} : (tensor<?x10xf32>, tensor<?xi64>, none, tensor<i64>) -> (tensor<*xf32>, tensor<*xf32>)
  %1 = onnx.ms.SoftmaxCrossEntropyLossInternalGrad(%0#0, %0#1, %l, %none, %ii, %none) {reduction = "none"} : (tensor<*xf32>, tensor<*xf32>, tensor<?xi64>, none, tensor<i64>, none) -> tensor<*xf32>
  return %0#0, %0#1, %1 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
