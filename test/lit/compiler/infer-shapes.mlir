// RUN: odt-opt %s --split-input-file --odt-infer-shapes --verify-diagnostics | FileCheck %s

// odt-infer-shapes: argument dims come from `onnx.dims` (a size or a symbol
// name per dim), every onnx op refines its result types, symbols unify
// across the function, and `onnx.dims` is written on arguments and results.

// A Gemm binds the dynamic K of its input to 784, the weight's dim; the
// batch symbol stays dynamic and keeps its name.
// CHECK-LABEL: func.func @gemm_binds_k
// CHECK-SAME:    (%[[X:.*]]: tensor<?x784xf32> {onnx.dims = ["batch", 784]}, %[[W:.*]]: tensor<500x784xf32> {onnx.dims = [500, 784]}, %[[B:.*]]: tensor<500xf32> {onnx.dims = [500]})
// CHECK-SAME:    -> (tensor<?x500xf32> {onnx.dims = ["batch", 500]})
// CHECK:         %[[Y:.*]] = onnx.Gemm(%[[X]], %[[W]], %[[B]]) {transB = 1 : i64} : (tensor<?x784xf32>, tensor<500x784xf32>, tensor<500xf32>) -> tensor<?x500xf32>
// CHECK:         %[[R:.*]] = onnx.Relu(%[[Y]]) : (tensor<?x500xf32>) -> tensor<?x500xf32>
// CHECK:         return %[[R]] : tensor<?x500xf32>
func.func @gemm_binds_k(%x: tensor<?x?xf32> {onnx.dims = ["batch", "K"]},
                        %w: tensor<500x784xf32>, %b: tensor<500xf32>) -> tensor<*xf32> {
  %0 = onnx.Gemm(%x, %w, %b) {transB = 1 : i64} : (tensor<?x?xf32>, tensor<500x784xf32>, tensor<500xf32>) -> tensor<*xf32>
  %1 = onnx.Relu(%0) : (tensor<*xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// A binding reaches every value that carries the symbol, also ones inferred
// before the binding (the first Relu) and other arguments naming it.
// CHECK-LABEL: func.func @binding_reaches_earlier_values
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32> {onnx.dims = ["N", 3]}, %[[Z:.*]]: tensor<3xf32> {onnx.dims = [3]}, %[[W:.*]]: tensor<3x5xf32> {onnx.dims = [3, 5]})
// CHECK-SAME:    -> (tensor<?x3xf32> {onnx.dims = ["N", 3]}, tensor<?x5xf32> {onnx.dims = ["N", 5]})
// CHECK:         %[[R:.*]] = onnx.Relu(%[[X]]) : (tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK:         %[[G:.*]] = onnx.Gemm(%[[R]], %[[W]], %{{.*}}) : (tensor<?x3xf32>, tensor<3x5xf32>, none) -> tensor<?x5xf32>
// CHECK:         return %[[R]], %[[G]]
func.func @binding_reaches_earlier_values(%x: tensor<?x?xf32> {onnx.dims = ["N", "K"]},
                                          %z: tensor<?xf32> {onnx.dims = ["K"]},
                                          %w: tensor<3x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Relu(%x) : (tensor<?x?xf32>) -> tensor<*xf32>
  %1 = onnx.Gemm(%0, %w, %none) : (tensor<*xf32>, tensor<3x5xf32>, none) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Labels and scores share the batch: "M" joins "N" (the older symbol names
// the class), so every result is dimensioned by N.
// CHECK-LABEL: func.func @loss_unifies_batch
// CHECK-SAME:    (%{{.*}}: tensor<?x10xf32> {onnx.dims = ["N", 10]}, %{{.*}}: tensor<?xi64> {onnx.dims = ["N"]})
// CHECK-SAME:    -> (tensor<?xf32> {onnx.dims = ["N"]}, tensor<?x10xf32> {onnx.dims = ["N", 10]})
// CHECK:         %[[LOSS:.*]], %[[LP:.*]] = onnx.SoftmaxCrossEntropyLoss({{.*}}) {reduction = "none"} : (tensor<?x10xf32>, tensor<?xi64>, none) -> (tensor<?xf32>, tensor<?x10xf32>)
// CHECK:         return %[[LOSS]], %[[LP]]
func.func @loss_unifies_batch(%s: tensor<?x10xf32> {onnx.dims = ["N", 10]},
                              %l: tensor<?xi64> {onnx.dims = ["M"]}) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none) {reduction = "none"} : (tensor<?x10xf32>, tensor<?xi64>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Mean and sum reduce to a scalar; the gradient has the shape of log_prob.
// CHECK-LABEL: func.func @loss_and_grad
// CHECK:         onnx.SoftmaxCrossEntropyLoss({{.*}}) : (tensor<?x10xf32>, tensor<?xi32>, tensor<10xf32>) -> (tensor<f32>, tensor<?x10xf32>)
// CHECK:         onnx.ms.SoftmaxCrossEntropyLossGrad({{.*}}) : (tensor<f32>, tensor<?x10xf32>, tensor<?xi32>, tensor<10xf32>, none) -> tensor<?x10xf32>
// CHECK:         return {{.*}} : tensor<f32>, tensor<?x10xf32>
func.func @loss_and_grad(%s: tensor<?x10xf32> {onnx.dims = ["N", 10]}, %l: tensor<?xi32> {onnx.dims = ["N"]},
                         %w: tensor<10xf32>, %dy: tensor<f32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %w) : (tensor<?x10xf32>, tensor<?xi32>, tensor<10xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  %1 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %0#1, %l, %w, %none) : (tensor<f32>, tensor<*xf32>, tensor<?xi32>, tensor<10xf32>, none) -> tensor<*xf32>
  return %0#0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Without onnx.dims each dynamic dim gets its own symbol, named after the
// argument; ReluGrad unifies dY with X.
// CHECK-LABEL: func.func @fresh_symbols
// CHECK-SAME:    (%{{.*}}: tensor<?x10xf32> {onnx.dims = ["arg0_dim0", 10]}, %{{.*}}: tensor<?x10xf32> {onnx.dims = ["arg0_dim0", 10]})
// CHECK-SAME:    -> (tensor<?x10xf32> {onnx.dims = ["arg0_dim0", 10]})
func.func @fresh_symbols(%dy: tensor<?x10xf32>, %x: tensor<?x?xf32>) -> tensor<*xf32> {
  %0 = onnx.ms.ReluGrad(%dy, %x) : (tensor<?x10xf32>, tensor<?x?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ReduceSum: negative axes count from the end; keepdims keeps unit dims;
// absent axes reduce everything.
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME:    -> (tensor<1x5x1xf32> {onnx.dims = [1, 5, 1]}, tensor<5xf32> {onnx.dims = [5]}, tensor<f32> {onnx.dims = []}, tensor<?x5x?xf32> {onnx.dims = ["N", 5, "T"]})
func.func @reduce_sum(%x: tensor<?x5x?xf32> {onnx.dims = ["N", 5, "T"]})
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %axes = onnx.Constant {value = dense<[-1, 0]> : tensor<2xi64>} : tensor<2xi64>
  %none = onnx.NoValue
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<?x5x?xf32>, tensor<2xi64>) -> tensor<*xf32>
  %1 = onnx.ReduceSum(%x, %axes) {keepdims = 0 : i64} : (tensor<?x5x?xf32>, tensor<2xi64>) -> tensor<*xf32>
  %2 = onnx.ReduceSum(%x, %none) {keepdims = 0 : i64} : (tensor<?x5x?xf32>, none) -> tensor<*xf32>
  %3 = onnx.ReduceSum(%x, %none) {noop_with_empty_axes = 1 : i64} : (tensor<?x5x?xf32>, none) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// The accumulator and the optimizers: value dims bind to the buffer's, and
// updated state has the shape of the state it updates.
// CHECK-LABEL: func.func @state_updates
// CHECK-SAME:    (%{{.*}}: tensor<4x3xf32> {onnx.dims = [4, 3]}, %{{.*}}: tensor<4x3xf32> {onnx.dims = [4, 3]}, %{{.*}}: tensor<1xi1> {onnx.dims = [1]}, %{{.*}}: tensor<1xf32> {onnx.dims = [1]})
// CHECK-SAME:    -> (tensor<1xi1> {onnx.dims = [1]}, tensor<4x3xf32> {onnx.dims = [4, 3]}, tensor<1xi1> {onnx.dims = [1]}, tensor<4x3xf32> {onnx.dims = [4, 3]})
// CHECK:         onnx.ms.InPlaceAccumulatorV2({{.*}}) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xi1>) -> (tensor<1xi1>, tensor<4x3xf32>)
// CHECK:         onnx.ms.SGDOptimizerV2({{.*}}) : (tensor<1xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<1xi1>, tensor<4x3xf32>)
func.func @state_updates(%buf: tensor<4x3xf32>, %v: tensor<4x?xf32>, %flag: tensor<1xi1>, %lr: tensor<1xf32>)
    -> (tensor<*xi1>, tensor<*xf32>, tensor<*xi1>, tensor<*xf32>) {
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%buf, %v, %flag) : (tensor<4x3xf32>, tensor<4x?xf32>, tensor<1xi1>) -> (tensor<*xi1>, tensor<*xf32>)
  %1:2 = onnx.ms.SGDOptimizerV2(%lr, %buf, %buf) : (tensor<1xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<*xi1>, tensor<*xf32>, tensor<*xi1>, tensor<*xf32>
}

// -----

// A symbol used twice in one argument binds to its static size.
// CHECK-LABEL: func.func @symbol_binds_to_type
// CHECK-SAME:    (%{{.*}}: tensor<4x4xf32> {onnx.dims = [4, 4]})
func.func @symbol_binds_to_type(%x: tensor<?x4xf32> {onnx.dims = ["N", "N"]}) -> tensor<*xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Errors name the node and the dims that differ.
func.func @gemm_inner_dims(%a: tensor<?x3xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): inner dimensions of A and B differ: 3 vs 4}}
  %0 = onnx.Gemm(%a, %b, %none) : (tensor<?x3xf32>, tensor<4x5xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// K is bound to 3 by the first Gemm; the second finds 4. The error names the
// node (a NameLoc without a file location is reported at an unknown location).
func.func @symbol_bound_then_mismatched(%x: tensor<?x?xf32> {onnx.dims = ["N", "K"]},
                                        %w1: tensor<5x3xf32>, %w2: tensor<4x5xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  %0 = onnx.Gemm(%x, %w1, %none) {transB = 1 : i64} : (tensor<?x?xf32>, tensor<5x3xf32>, none) -> tensor<*xf32>
  // expected-error @unknown {{node 'fc2' (onnx.Gemm): inner dimensions of A and B differ: 3 vs 4}}
  %1 = onnx.Gemm(%x, %w2, %none) : (tensor<?x?xf32>, tensor<4x5xf32>, none) -> tensor<*xf32> loc("fc2")
  return %1 : tensor<*xf32>
}

// -----

func.func @gemm_c_broadcast(%a: tensor<2x3xf32>, %c: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Gemm' (onnx.Gemm): C cannot broadcast to [M, N]: 2 vs 3}}
  %0 = onnx.Gemm(%a, %a, %c) {transA = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @labels_batch(%s: tensor<4x10xf32>, %l: tensor<5xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.SoftmaxCrossEntropyLoss' (onnx.SoftmaxCrossEntropyLoss): labels do not match the batch dims of scores: 5 vs 4}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %none) : (tensor<4x10xf32>, tensor<5xi64>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

func.func @weights_per_class(%s: tensor<?x10xf32>, %l: tensor<?xi64>, %w: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{weights must have one entry per class: 3 vs 10}}
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%s, %l, %w) : (tensor<?x10xf32>, tensor<?xi64>, tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

// A mean loss has a scalar gradient.
func.func @grad_dy_shape(%dy: tensor<4xf32>, %lp: tensor<4x10xf32>, %l: tensor<4xi64>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{dY must have the shape of the loss}}
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %none) : (tensor<4xf32>, tensor<4x10xf32>, tensor<4xi64>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @accumulator_rank(%b: tensor<4x3xf32>, %v: tensor<3xf32>, %flag: tensor<1xi1>) -> tensor<*xf32> {
  // expected-error @+1 {{buffer and value must have the same shape: rank 2 vs 1}}
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%b, %v, %flag) : (tensor<4x3xf32>, tensor<3xf32>, tensor<1xi1>) -> (tensor<*xi1>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

func.func @relu_grad_dims(%dy: tensor<4x3xf32>, %x: tensor<4x5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{dY and X must have the same shape: 3 vs 5}}
  %0 = onnx.ms.ReluGrad(%dy, %x) : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @computed_axes(%x: tensor<?x4xf32>, %axes: tensor<1xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{axes must be a constant (computed axes are not supported)}}
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @not_onnx(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{no shape inference for 'arith.negf'}}
  %0 = arith.negf %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Argument errors: each is located at the argument.
func.func @unranked_argument(
    // expected-error @+1 {{argument #0 has type 'tensor<*xf32>'; shape inference needs ranked tensors}}
    %x: tensor<*xf32>) -> tensor<*xf32> {
  %0 = onnx.Relu(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @dims_contradict_type(
    // expected-error @+1 {{argument #0: onnx.dims dim 1 is 5, but the type 'tensor<?x4xf32>' says 4}}
    %x: tensor<?x4xf32> {onnx.dims = ["N", 5]}) -> tensor<*xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @symbol_contradicts_type(
    %x: tensor<3x?xf32> {onnx.dims = ["N", "M"]},
    // expected-error @+1 {{argument #1: onnx.dims dim 0 is 'N', bound to 3 earlier, but the type 'tensor<5xf32>' says 5}}
    %y: tensor<5xf32> {onnx.dims = ["N"]}) -> tensor<*xf32> {
  %0 = onnx.Relu(%x) : (tensor<3x?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @dims_wrong_rank(
    // expected-error @+1 {{argument #0: onnx.dims must list 2 dims (a size or a symbol name each), got ["N"]}}
    %x: tensor<?x4xf32> {onnx.dims = ["N"]}) -> tensor<*xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @dims_bad_entry(
    // expected-error @+1 {{argument #0: onnx.dims dim 0 is 1.000000e+00 : f32, neither a size nor a symbol name}}
    %x: tensor<?x4xf32> {onnx.dims = [1.0 : f32, 4]}) -> tensor<*xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
