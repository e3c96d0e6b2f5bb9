// RUN: odt-opt %s --split-input-file | odt-opt --split-input-file | FileCheck %s
// RUN: odt-opt %s --split-input-file --mlir-print-op-generic | odt-opt --split-input-file | FileCheck %s

// Every com.microsoft training op of ops/Training.td (and the two pooling
// gradients ORT registers in the default domain) parses, verifies, prints
// and parses again, in the custom and in the generic form.

// CHECK-LABEL: func.func @activation_grads
// CHECK:         onnx.ms.SigmoidGrad(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.TanhGrad(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.LeakyReluGrad(%{{.*}}, %{{.*}}) {alpha = 2.000000e-01 : f32} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.GeluGrad(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.FastGeluGrad(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
func.func @activation_grads(%dy: tensor<?x8xf32>, %x: tensor<?x8xf32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = onnx.ms.SigmoidGrad(%dy, %x) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = onnx.ms.TanhGrad(%dy, %x) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %2 = onnx.ms.LeakyReluGrad(%dy, %x) {alpha = 0.2 : f32} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = onnx.ms.GeluGrad(%dy, %x) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %4 = onnx.ms.FastGeluGrad(%dy, %x) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0, %1, %2, %3, %4 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @contrib_gelu
// CHECK:         onnx.ms.Gelu(%{{.*}}) : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.BiasGelu(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.FastGelu(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.ms.FastGelu(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, none) -> tensor<?x8xf32>
func.func @contrib_gelu(%x: tensor<?x8xf32>, %b: tensor<8xf32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %none = onnx.NoValue
  %0 = onnx.ms.Gelu(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = onnx.ms.BiasGelu(%x, %b) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %2 = onnx.ms.FastGelu(%x, %b) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %3 = onnx.ms.FastGelu(%x, %none) : (tensor<?x8xf32>, none) -> tensor<?x8xf32>
  return %0, %1, %2, %3 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Attributes equal to their default (axis = 1 before opset 13, -1 after)
// are elided.
// CHECK-LABEL: func.func @softmax_grads
// CHECK:         onnx.ms.SoftmaxGrad(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         onnx.ms.SoftmaxGrad_13(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         onnx.ms.LogSoftmaxGrad(%{{.*}}, %{{.*}}) {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         onnx.ms.LogSoftmaxGrad_13(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
func.func @softmax_grads(%dy: tensor<2x3x4xf32>, %y: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = onnx.ms.SoftmaxGrad(%dy, %y) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = onnx.ms.SoftmaxGrad_13(%dy, %y) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = onnx.ms.LogSoftmaxGrad(%dy, %y) {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = onnx.ms.LogSoftmaxGrad_13(%dy, %y) {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @normalization
// CHECK:         onnx.ms.LayerNormalizationGrad(%{{.*}}) {epsilon = 9.99999974E-6 : f32, stash_type = 1 : i64} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>, tensor<?x1xf32>, tensor<?x1xf32>) -> (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK:         onnx.SimplifiedLayerNormalization(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?x1xf32>)
// CHECK:         onnx.ms.SimplifiedLayerNormalizationGrad(%{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>, tensor<?x1xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
// CHECK:         onnx.ms.BatchNormInternal(%{{.*}}) {momentum = 8.000000e-01 : f32} : (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         onnx.ms.BatchNormalizationGrad(%{{.*}}) {epsilon = 9.99999974E-6 : f32} : (tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
func.func @normalization(%dy: tensor<?x8xf32>, %x: tensor<?x8xf32>, %s: tensor<8xf32>, %m: tensor<?x1xf32>, %i: tensor<?x1xf32>,
                         %bx: tensor<?x4x5x5xf32>, %c: tensor<4xf32>) {
  %0:3 = onnx.ms.LayerNormalizationGrad(%dy, %x, %s, %m, %i) {axis = -1 : i64, epsilon = 1.0e-5 : f32, stash_type = 1 : i64}
      : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>, tensor<?x1xf32>, tensor<?x1xf32>) -> (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %1:2 = onnx.SimplifiedLayerNormalization(%x, %s) : (tensor<?x8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?x1xf32>)
  %2:2 = onnx.ms.SimplifiedLayerNormalizationGrad(%dy, %x, %s, %i) : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>, tensor<?x1xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
  %3:5 = onnx.ms.BatchNormInternal(%bx, %c, %c, %c, %c) {momentum = 0.8 : f32}
      : (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %4:3 = onnx.ms.BatchNormalizationGrad(%bx, %bx, %c, %c, %c) {epsilon = 1.0e-5 : f32}
      : (tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_and_pool_grads
// CHECK:         onnx.ms.ConvGrad(%{{.*}}, %{{.*}}, %{{.*}}) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x6x6xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
// CHECK:         onnx.MaxPoolGrad(%{{.*}}, %{{.*}}) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xi64>) -> tensor<?x4x6x6xf32>
// CHECK:         onnx.AveragePoolGrad(%{{.*}}) {count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x4x3x3xf32>) -> tensor<?x4x6x6xf32>
func.func @conv_and_pool_grads(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x6x6xf32>, %w: tensor<4x3x3x3xf32>,
                               %pdy: tensor<?x4x3x3xf32>, %idx: tensor<?x4x3x3xi64>) {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x4x6x6xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  %1 = onnx.MaxPoolGrad(%pdy, %idx) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 0 : i64}
      : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xi64>) -> tensor<?x4x6x6xf32>
  %2 = onnx.AveragePoolGrad(%pdy) {count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<?x4x3x3xf32>) -> tensor<?x4x6x6xf32>
  return
}

// -----

// CHECK-LABEL: func.func @structural_grads
// CHECK:         onnx.ms.GatherGrad(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2xi64>, tensor<?x4xi64>, tensor<?x4x8xf32>) -> tensor<20x8xf32>
// CHECK:         onnx.ms.GatherElementsGrad(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<3x2xf32>, tensor<2xi64>, tensor<3x2xi32>) -> tensor<3x5xf32>
// CHECK:         onnx.ms.DropoutGrad(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xi1>, tensor<f32>, none) -> tensor<?x8xf32>
// CHECK:         onnx.ms.SliceGrad(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x3xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x8xf32>
// CHECK:         onnx.ms.DivGrad(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
func.func @structural_grads(%shape: tensor<2xi64>, %ind: tensor<?x4xi64>, %gdy: tensor<?x4x8xf32>,
                            %edy: tensor<3x2xf32>, %eind: tensor<3x2xi32>,
                            %dy: tensor<?x8xf32>, %mask: tensor<?x8xi1>, %ratio: tensor<f32>,
                            %sdy: tensor<?x3xf32>, %st: tensor<1xi64>, %b: tensor<8xf32>) {
  %none = onnx.NoValue
  %0 = onnx.ms.GatherGrad(%shape, %ind, %gdy) {axis = 0 : i64} : (tensor<2xi64>, tensor<?x4xi64>, tensor<?x4x8xf32>) -> tensor<20x8xf32>
  %1 = onnx.ms.GatherElementsGrad(%edy, %shape, %eind) {axis = 1 : i64} : (tensor<3x2xf32>, tensor<2xi64>, tensor<3x2xi32>) -> tensor<3x5xf32>
  %2 = onnx.ms.DropoutGrad(%dy, %mask, %ratio, %none) : (tensor<?x8xf32>, tensor<?x8xi1>, tensor<f32>, none) -> tensor<?x8xf32>
  %3 = onnx.ms.SliceGrad(%sdy, %shape, %st, %st, %st, %none) : (tensor<?x3xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x8xf32>
  %4:2 = onnx.ms.DivGrad(%dy, %dy, %b) : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @shape_helpers
// CHECK:         onnx.ms.BroadcastGradientArgs(%{{.*}}, %{{.*}}) : (tensor<2xi64>, tensor<1xi64>) -> (tensor<0xi64>, tensor<1xi64>)
// CHECK:         onnx.ms.ReduceSumTraining(%{{.*}}, %{{.*}}) {noop_with_empty_axes = 1 : i64} : (tensor<?x8xf32>, tensor<1xi64>) -> tensor<?x1xf32>
// CHECK:         onnx.ms.FusedMatMul(%{{.*}}, %{{.*}}) {alpha = 5.000000e-01 : f32, transB = 1 : i64} : (tensor<2x?x8xf32>, tensor<5x8xf32>) -> tensor<2x?x5xf32>
// CHECK:         onnx.ms.Scale(%{{.*}}, %{{.*}}) {scale_down = 1 : i64} : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x8xf32>
func.func @shape_helpers(%a: tensor<2xi64>, %b: tensor<1xi64>, %x: tensor<?x8xf32>, %m: tensor<2x?x8xf32>,
                         %w: tensor<5x8xf32>, %s: tensor<i64>) {
  %0:2 = onnx.ms.BroadcastGradientArgs(%a, %b) : (tensor<2xi64>, tensor<1xi64>) -> (tensor<0xi64>, tensor<1xi64>)
  %1 = onnx.ms.ReduceSumTraining(%x, %b) {noop_with_empty_axes = 1 : i64} : (tensor<?x8xf32>, tensor<1xi64>) -> tensor<?x1xf32>
  %2 = onnx.ms.FusedMatMul(%m, %w) {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<2x?x8xf32>, tensor<5x8xf32>) -> tensor<2x?x5xf32>
  %3 = onnx.ms.Scale(%x, %s) {scale_down = 1 : i64} : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @concat_and_split
// CHECK:         %[[C:.*]], %[[L:.*]] = onnx.ms.ConcatTraining(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> (tensor<?x8xf32>, tensor<2xi64>)
// CHECK:         onnx.ms.SplitTraining(%[[C]], %[[L]]) {axis = 1 : i64} : (tensor<?x8xf32>, tensor<2xi64>) -> (tensor<?x3xf32>, tensor<?x5xf32>)
func.func @concat_and_split(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) {
  %0:2 = onnx.ms.ConcatTraining(%a, %b) {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> (tensor<?x8xf32>, tensor<2xi64>)
  %1:2 = onnx.ms.SplitTraining(%0#0, %0#1) {axis = 1 : i64} : (tensor<?x8xf32>, tensor<2xi64>) -> (tensor<?x3xf32>, tensor<?x5xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @accumulation
// CHECK:         onnx.ms.InPlaceAccumulator(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xi1>) -> tensor<4x3xf32>
// CHECK:         onnx.ms.ZeroGradient(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<1xi1>) -> tensor<4x3xf32>
// CHECK:         onnx.ms.InplaceClipGradNorm(%{{.*}}, %{{.*}}) {max_norm = 5.000000e-01 : f32} : (tensor<4x3xf32>, tensor<4xf32>) -> (tensor<4x3xf32>, tensor<4xf32>)
func.func @accumulation(%buf: tensor<4x3xf32>, %v: tensor<4x3xf32>, %flag: tensor<1xi1>, %g: tensor<4xf32>) {
  %0 = onnx.ms.InPlaceAccumulator(%buf, %v, %flag) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xi1>) -> tensor<4x3xf32>
  %1 = onnx.ms.ZeroGradient(%buf, %flag) : (tensor<4x3xf32>, tensor<1xi1>) -> tensor<4x3xf32>
  %2:2 = onnx.ms.InplaceClipGradNorm(%buf, %g) {max_norm = 0.5 : f32, norm_type = "fro"} : (tensor<4x3xf32>, tensor<4xf32>) -> (tensor<4x3xf32>, tensor<4xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @loss_internal
// CHECK:         %[[LOSS:.*]], %[[LP:.*]] = onnx.ms.SoftmaxCrossEntropyLossInternal(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {reduction = "sum"} : (tensor<?x10xf32>, tensor<?xi64>, none, tensor<i64>) -> (tensor<f32>, tensor<?x10xf32>)
// CHECK:         onnx.ms.SoftmaxCrossEntropyLossInternalGrad(%{{.*}}, %[[LP]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {output_type = 1 : i64} : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>, tensor<10xf32>, tensor<i64>, none) -> tensor<?x10xf32>
func.func @loss_internal(%s: tensor<?x10xf32>, %l: tensor<?xi64>, %ii: tensor<i64>, %w: tensor<10xf32>, %dy: tensor<f32>) {
  %none = onnx.NoValue
  %0:2 = onnx.ms.SoftmaxCrossEntropyLossInternal(%s, %l, %none, %ii) {reduction = "sum"}
      : (tensor<?x10xf32>, tensor<?xi64>, none, tensor<i64>) -> (tensor<f32>, tensor<?x10xf32>)
  %1 = onnx.ms.SoftmaxCrossEntropyLossInternalGrad(%dy, %0#1, %l, %w, %ii, %none) {output_type = 1 : i64}
      : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>, tensor<10xf32>, tensor<i64>, none) -> tensor<?x10xf32>
  return
}
