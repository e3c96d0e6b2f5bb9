// RUN: odt-opt %s --split-input-file | odt-opt --split-input-file | FileCheck %s
// RUN: odt-opt %s --split-input-file --mlir-print-op-generic | odt-opt --split-input-file | FileCheck %s

// Every op of the onnx dialect parses, prints and parses again: the second
// odt-opt re-parses what the first printed, in the custom form (first RUN)
// and in the generic form (second RUN).

// CHECK-LABEL: func.func @no_value
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         return %[[NONE]] : none
func.func @no_value() -> none {
  %0 = onnx.NoValue
  return %0 : none
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK:         %[[C:.*]] = onnx.Constant {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : tensor<2xf32>
// CHECK:         %[[I:.*]] = onnx.Constant {value = dense<[0, -1]> : tensor<2xi64>} : tensor<2xi64>
// CHECK:         return %[[C]], %[[I]]
func.func @constant() -> (tensor<2xf32>, tensor<2xi64>) {
  %0 = onnx.Constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %1 = onnx.Constant {value = dense<[0, -1]> : tensor<2xi64>} : tensor<2xi64>
  return %0, %1 : tensor<2xf32>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xi64>)
// CHECK:         %[[Y:.*]] = onnx.Identity(%[[X]]) : (tensor<?x4xi64>) -> tensor<?x4xi64>
// CHECK:         return %[[Y]]
func.func @identity(%x: tensor<?x4xi64>) -> tensor<?x4xi64> {
  %0 = onnx.Identity(%x) : (tensor<?x4xi64>) -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// Attributes equal to their default (transA = 0) are elided when printed.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[A:.*]]: tensor<?x784xf32>, %[[B:.*]]: tensor<500x784xf32>, %[[C:.*]]: tensor<500xf32>)
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         %[[Y0:.*]] = onnx.Gemm(%[[A]], %[[B]], %[[C]]) {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transB = 1 : i64} : (tensor<?x784xf32>, tensor<500x784xf32>, tensor<500xf32>) -> tensor<?x500xf32>
// CHECK:         %[[Y1:.*]] = onnx.Gemm(%[[A]], %[[B]], %[[NONE]]) {transB = 1 : i64} : (tensor<?x784xf32>, tensor<500x784xf32>, none) -> tensor<?x500xf32>
// CHECK:         %[[Y2:.*]] = onnx.Gemm(%[[A]], %[[A]], %[[NONE]]) {transA = 1 : i64} : (tensor<?x784xf32>, tensor<?x784xf32>, none) -> tensor<784x784xf32>
// CHECK:         return %[[Y0]], %[[Y1]], %[[Y2]]
func.func @gemm(%a: tensor<?x784xf32>, %b: tensor<500x784xf32>, %c: tensor<500xf32>)
    -> (tensor<?x500xf32>, tensor<?x500xf32>, tensor<784x784xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Gemm(%a, %b, %c) {alpha = 0.5 : f32, beta = 2.0 : f32, transB = 1 : i64}
      : (tensor<?x784xf32>, tensor<500x784xf32>, tensor<500xf32>) -> tensor<?x500xf32>
  %1 = onnx.Gemm(%a, %b, %none) {transA = 0 : i64, transB = 1 : i64}
      : (tensor<?x784xf32>, tensor<500x784xf32>, none) -> tensor<?x500xf32>
  %2 = onnx.Gemm(%a, %a, %none) {transA = 1 : i64}
      : (tensor<?x784xf32>, tensor<?x784xf32>, none) -> tensor<784x784xf32>
  return %0, %1, %2 : tensor<?x500xf32>, tensor<?x500xf32>, tensor<784x784xf32>
}

// -----

// Results are AnyTensor: an unranked placeholder (as the importer makes
// before inference) parses too.
// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[X:.*]]: tensor<?x500xf32>)
// CHECK:         %[[Y:.*]] = onnx.Relu(%[[X]]) : (tensor<?x500xf32>) -> tensor<?x500xf32>
// CHECK:         %[[U:.*]] = onnx.Relu(%[[X]]) : (tensor<?x500xf32>) -> tensor<*xf32>
// CHECK:         return %[[Y]], %[[U]]
func.func @relu(%x: tensor<?x500xf32>) -> (tensor<?x500xf32>, tensor<*xf32>) {
  %0 = onnx.Relu(%x) : (tensor<?x500xf32>) -> tensor<?x500xf32>
  %1 = onnx.Relu(%x) : (tensor<?x500xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<?x500xf32>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME:    (%[[X:.*]]: tensor<?x10xf32>)
// CHECK:         %[[AXES:.*]] = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         %[[R0:.*]] = onnx.ReduceSum(%[[X]], %[[AXES]]) {keepdims = 0 : i64} : (tensor<?x10xf32>, tensor<1xi64>) -> tensor<10xf32>
// CHECK:         %[[R1:.*]] = onnx.ReduceSum(%[[X]], %[[NONE]]) : (tensor<?x10xf32>, none) -> tensor<1x1xf32>
// CHECK:         %[[R2:.*]] = onnx.ReduceSum(%[[X]], %[[NONE]]) {noop_with_empty_axes = 1 : i64} : (tensor<?x10xf32>, none) -> tensor<?x10xf32>
// CHECK:         return %[[R0]], %[[R1]], %[[R2]]
func.func @reduce_sum(%x: tensor<?x10xf32>) -> (tensor<10xf32>, tensor<1x1xf32>, tensor<?x10xf32>) {
  %axes = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
  %none = onnx.NoValue
  %0 = onnx.ReduceSum(%x, %axes) {keepdims = 0 : i64} : (tensor<?x10xf32>, tensor<1xi64>) -> tensor<10xf32>
  %1 = onnx.ReduceSum(%x, %none) : (tensor<?x10xf32>, none) -> tensor<1x1xf32>
  %2 = onnx.ReduceSum(%x, %none) {noop_with_empty_axes = 1 : i64} : (tensor<?x10xf32>, none) -> tensor<?x10xf32>
  return %0, %1, %2 : tensor<10xf32>, tensor<1x1xf32>, tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_cross_entropy_loss
// CHECK-SAME:    (%[[S:.*]]: tensor<?x10xf32>, %[[L:.*]]: tensor<?xi64>, %[[W:.*]]: tensor<10xf32>)
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         %[[OUT:.*]], %[[LP:.*]] = onnx.SoftmaxCrossEntropyLoss(%[[S]], %[[L]], %[[NONE]]) : (tensor<?x10xf32>, tensor<?xi64>, none) -> (tensor<f32>, tensor<?x10xf32>)
// CHECK:         %[[OUT2:.*]], %[[LP2:.*]] = onnx.SoftmaxCrossEntropyLoss(%[[S]], %[[L]], %[[W]]) {ignore_index = -1 : i64, reduction = "none"} : (tensor<?x10xf32>, tensor<?xi64>, tensor<10xf32>) -> (tensor<?xf32>, tensor<?x10xf32>)
// CHECK:         return %[[OUT]], %[[LP]], %[[OUT2]], %[[LP2]]
func.func @softmax_cross_entropy_loss(%s: tensor<?x10xf32>, %l: tensor<?xi64>, %w: tensor<10xf32>)
    -> (tensor<f32>, tensor<?x10xf32>, tensor<?xf32>, tensor<?x10xf32>) {
  %none = onnx.NoValue
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none)
      : (tensor<?x10xf32>, tensor<?xi64>, none) -> (tensor<f32>, tensor<?x10xf32>)
  %1:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %w) {ignore_index = -1 : i64, reduction = "none"}
      : (tensor<?x10xf32>, tensor<?xi64>, tensor<10xf32>) -> (tensor<?xf32>, tensor<?x10xf32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<f32>, tensor<?x10xf32>, tensor<?xf32>, tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_cross_entropy_loss_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<f32>, %[[LP:.*]]: tensor<?x10x3xf32>, %[[L:.*]]: tensor<?x3xi32>)
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         %[[D:.*]] = onnx.ms.SoftmaxCrossEntropyLossGrad(%[[DY]], %[[LP]], %[[L]], %[[NONE]], %[[NONE]]) {reduction = "sum"} : (tensor<f32>, tensor<?x10x3xf32>, tensor<?x3xi32>, none, none) -> tensor<?x10x3xf32>
// CHECK:         return %[[D]]
func.func @softmax_cross_entropy_loss_grad(%dy: tensor<f32>, %lp: tensor<?x10x3xf32>, %l: tensor<?x3xi32>)
    -> tensor<?x10x3xf32> {
  %none = onnx.NoValue
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %none) {reduction = "sum"}
      : (tensor<f32>, tensor<?x10x3xf32>, tensor<?x3xi32>, none, none) -> tensor<?x10x3xf32>
  return %0 : tensor<?x10x3xf32>
}

// -----

// CHECK-LABEL: func.func @relu_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<?x500xf64>, %[[X:.*]]: tensor<?x500xf64>)
// CHECK:         %[[DX:.*]] = onnx.ms.ReluGrad(%[[DY]], %[[X]]) : (tensor<?x500xf64>, tensor<?x500xf64>) -> tensor<?x500xf64>
// CHECK:         return %[[DX]]
func.func @relu_grad(%dy: tensor<?x500xf64>, %x: tensor<?x500xf64>) -> tensor<?x500xf64> {
  %0 = onnx.ms.ReluGrad(%dy, %x) : (tensor<?x500xf64>, tensor<?x500xf64>) -> tensor<?x500xf64>
  return %0 : tensor<?x500xf64>
}

// -----

// CHECK-LABEL: func.func @in_place_accumulator_v2
// CHECK-SAME:    (%[[BUF:.*]]: tensor<10x500xf32>, %[[V:.*]]: tensor<10x500xf32>, %[[FLAG:.*]]: tensor<1xi1>)
// CHECK:         %[[UF:.*]], %[[OUT:.*]] = onnx.ms.InPlaceAccumulatorV2(%[[BUF]], %[[V]], %[[FLAG]]) : (tensor<10x500xf32>, tensor<10x500xf32>, tensor<1xi1>) -> (tensor<1xi1>, tensor<10x500xf32>)
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         %[[UF2:.*]], %[[OUT2:.*]] = onnx.ms.InPlaceAccumulatorV2(%[[BUF]], %[[V]], %[[NONE]]) : (tensor<10x500xf32>, tensor<10x500xf32>, none) -> (tensor<1xi1>, tensor<10x500xf32>)
// CHECK:         return %[[UF]], %[[OUT]], %[[OUT2]]
func.func @in_place_accumulator_v2(%buf: tensor<10x500xf32>, %v: tensor<10x500xf32>, %flag: tensor<1xi1>)
    -> (tensor<1xi1>, tensor<10x500xf32>, tensor<10x500xf32>) {
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %flag)
      : (tensor<10x500xf32>, tensor<10x500xf32>, tensor<1xi1>) -> (tensor<1xi1>, tensor<10x500xf32>)
  %none = onnx.NoValue
  %1:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %none)
      : (tensor<10x500xf32>, tensor<10x500xf32>, none) -> (tensor<1xi1>, tensor<10x500xf32>)
  return %0#0, %0#1, %1#1 : tensor<1xi1>, tensor<10x500xf32>, tensor<10x500xf32>
}

// -----

// Sequences are resolved at import: two parameters give groups of two.
// CHECK-LABEL: func.func @adamw_optimizer
// CHECK-SAME:    (%[[LR:[^:]*]]: tensor<1xf32>, %[[STEP:[^:]*]]: tensor<1xi64>, %[[W0:[^:]*]]: tensor<4x3xf32>, %[[W1:[^:]*]]: tensor<4xf32>, %[[G0:[^:]*]]: tensor<4x3xf32>, %[[G1:[^:]*]]: tensor<4xf32>, %[[M0:[^:]*]]: tensor<4x3xf32>, %[[M1:[^:]*]]: tensor<4xf32>, %[[V0:[^:]*]]: tensor<4x3xf32>, %[[V1:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[FLAG:.*]], %[[NEWW:.*]]:2, %[[NEWM:.*]]:2, %[[NEWV:.*]]:2 = onnx.ms.AdamWOptimizer(%[[LR]], %[[STEP]], %[[W0]], %[[W1]], %[[G0]], %[[G1]], %[[M0]], %[[M1]], %[[V0]], %[[V1]]) {adam_mode = 1 : i64, alpha = 8.000000e-01 : f32, correct_bias = 0 : i64, epsilon = 9.99999997E-7 : f32, weight_decay = 0.000000e+00 : f32}
// CHECK-SAME:      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
// CHECK:         return %[[FLAG]], %[[NEWW]]#0, %[[NEWW]]#1, %[[NEWM]]#0, %[[NEWV]]#1
func.func @adamw_optimizer(%lr: tensor<1xf32>, %step: tensor<1xi64>,
                           %w0: tensor<4x3xf32>, %w1: tensor<4xf32>,
                           %g0: tensor<4x3xf32>, %g1: tensor<4xf32>,
                           %m0: tensor<4x3xf32>, %m1: tensor<4xf32>,
                           %v0: tensor<4x3xf32>, %v1: tensor<4xf32>)
    -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>) {
  %0:7 = onnx.ms.AdamWOptimizer(%lr, %step, %w0, %w1, %g0, %g1, %m0, %m1, %v0, %v1)
      {adam_mode = 1 : i64, alpha = 0.8 : f32, correct_bias = 0 : i64, epsilon = 1.0e-6 : f32, weight_decay = 0.0 : f32}
      : (tensor<1xf32>, tensor<1xi64>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>,
         tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2, %0#3, %0#6 : tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sgd_optimizer_v2
// CHECK-SAME:    (%[[LR:[^:]*]]: tensor<1xf32>, %[[W0:[^:]*]]: tensor<4x3xf32>, %[[W1:[^:]*]]: tensor<4xf32>, %[[G0:[^:]*]]: tensor<4x3xf32>, %[[G1:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[DONE:.*]], %[[NEWW:.*]]:2 = onnx.ms.SGDOptimizerV2(%[[LR]], %[[W0]], %[[W1]], %[[G0]], %[[G1]]) : (tensor<1xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>) -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>)
// CHECK:         return %[[DONE]], %[[NEWW]]#0, %[[NEWW]]#1
func.func @sgd_optimizer_v2(%lr: tensor<1xf32>, %w0: tensor<4x3xf32>, %w1: tensor<4xf32>,
                            %g0: tensor<4x3xf32>, %g1: tensor<4xf32>)
    -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>) {
  %0:3 = onnx.ms.SGDOptimizerV2(%lr, %w0, %w1, %g0, %g1)
      : (tensor<1xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>
}
