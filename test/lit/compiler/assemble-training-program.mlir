// RUN: odt-opt %s --split-input-file --odt-assemble-training-program --verify-diagnostics | FileCheck %s

// odt-assemble-training-program: ORT's in-place state updates become results
// tied (odt.tied = argument number) to the argument buffer they overwrite,
// appended after the graph's own results with the argument's attributes;
// ORT's per-parameter accumulation flags (grad_accumulation_flag) are dropped.

// CHECK-LABEL: func.func @train
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?x3xf32> {odt.name = "x", odt.role = "user_input"},
// CHECK-SAME:     %[[W:[^:]*]]: tensor<4x3xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter"},
// CHECK-SAME:     %[[B:[^:]*]]: tensor<4xf32> {odt.name = "b", odt.param = 1 : i64, odt.role = "parameter"},
// CHECK-SAME:     %[[GW:[^:]*]]: tensor<4x3xf32> {odt.name = "w_grad.accumulation.buffer", odt.param = 0 : i64, odt.role = "gradient_buffer"},
// CHECK-SAME:     %[[GB:[^:]*]]: tensor<4xf32> {odt.name = "b_grad.accumulation.buffer", odt.param = 1 : i64, odt.role = "gradient_buffer"},
// CHECK-SAME:     %[[RESET:[^:]*]]: tensor<1xi1> {odt.name = "lazy_reset_grad", odt.role = "lazy_reset_grad"})
// CHECK-SAME:    -> (tensor<?x4xf32> {odt.name = "y", odt.role = "user_output"},
// CHECK-SAME:        tensor<4x3xf32> {odt.name = "w_grad.accumulation.buffer", odt.param = 0 : i64, odt.role = "gradient_buffer", odt.tied = 3 : i64},
// CHECK-SAME:        tensor<4xf32> {odt.name = "b_grad.accumulation.buffer", odt.param = 1 : i64, odt.role = "gradient_buffer", odt.tied = 4 : i64})
// CHECK:         %[[Y:.*]] = onnx.Gemm(%[[X]], %[[W]], %[[B]])
// CHECK:         %[[DW:.*]] = onnx.Gemm(%[[Y]], %[[X]], %{{.*}}) {transA = 1 : i64}
// CHECK:         %{{.*}}, %[[ACCW:.*]] = onnx.ms.InPlaceAccumulatorV2(%[[GW]], %[[DW]], %[[RESET]])
// CHECK:         %[[DB:.*]] = onnx.ReduceSum(%[[Y]]
// CHECK:         %{{.*}}, %[[ACCB:.*]] = onnx.ms.InPlaceAccumulatorV2(%[[GB]], %[[DB]], %[[RESET]])
// CHECK:         return %[[Y]], %[[ACCW]], %[[ACCB]] : tensor<?x4xf32>, tensor<4x3xf32>, tensor<4xf32>
func.func @train(%x: tensor<?x3xf32> {odt.name = "x", odt.role = "user_input"},
                 %w: tensor<4x3xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                 %b: tensor<4xf32> {odt.name = "b", odt.role = "parameter", odt.param = 1 : i64},
                 %gw: tensor<4x3xf32> {odt.name = "w_grad.accumulation.buffer", odt.role = "gradient_buffer", odt.param = 0 : i64},
                 %gb: tensor<4xf32> {odt.name = "b_grad.accumulation.buffer", odt.role = "gradient_buffer", odt.param = 1 : i64},
                 %reset: tensor<1xi1> {odt.name = "lazy_reset_grad", odt.role = "lazy_reset_grad"})
    -> (tensor<?x4xf32> {odt.name = "y", odt.role = "user_output"},
        tensor<1xi1> {odt.name = "w_grad.accumulation.out", odt.role = "grad_accumulation_flag"},
        tensor<1xi1> {odt.name = "b_grad.accumulation.out", odt.role = "grad_accumulation_flag"}) {
  %none = onnx.NoValue
  %axes = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
  %y = onnx.Gemm(%x, %w, %b) {transB = 1 : i64} : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %dw = onnx.Gemm(%y, %x, %none) {transA = 1 : i64} : (tensor<?x4xf32>, tensor<?x3xf32>, none) -> tensor<4x3xf32>
  %fw, %accw = onnx.ms.InPlaceAccumulatorV2(%gw, %dw, %reset) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xi1>) -> (tensor<1xi1>, tensor<4x3xf32>)
  %db = onnx.ReduceSum(%y, %axes) {keepdims = 0 : i64} : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<4xf32>
  %fb, %accb = onnx.ms.InPlaceAccumulatorV2(%gb, %db, %reset) : (tensor<4xf32>, tensor<4xf32>, tensor<1xi1>) -> (tensor<1xi1>, tensor<4xf32>)
  return %y, %fw, %fb : tensor<?x4xf32>, tensor<1xi1>, tensor<1xi1>
}

// -----

// AdamW: the updated flag stays; updated weights and both moments are tied
// to their arguments, in the optimizer's result order.
// CHECK-LABEL: func.func @adamw
// CHECK-SAME:    -> (tensor<1xi1> {odt.name = "updated_flag", odt.role = "updated_flag"},
// CHECK-SAME:        tensor<4x3xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter", odt.tied = 2 : i64},
// CHECK-SAME:        tensor<4xf32> {odt.name = "b", odt.param = 1 : i64, odt.role = "parameter", odt.tied = 3 : i64},
// CHECK-SAME:        tensor<4x3xf32> {odt.name = "w.momentum0", odt.param = 0 : i64, odt.role = "first_moment", odt.tied = 6 : i64},
// CHECK-SAME:        tensor<4xf32> {odt.name = "b.momentum0", odt.param = 1 : i64, odt.role = "first_moment", odt.tied = 7 : i64},
// CHECK-SAME:        tensor<4x3xf32> {odt.name = "w.momentum1", odt.param = 0 : i64, odt.role = "second_moment", odt.tied = 8 : i64},
// CHECK-SAME:        tensor<4xf32> {odt.name = "b.momentum1", odt.param = 1 : i64, odt.role = "second_moment", odt.tied = 9 : i64})
// CHECK:         %[[FLAG:.*]], %[[W:.*]]:2, %[[M:.*]]:2, %[[V:.*]]:2 = onnx.ms.AdamWOptimizer
// CHECK:         return %[[FLAG]], %[[W]]#0, %[[W]]#1, %[[M]]#0, %[[M]]#1, %[[V]]#0, %[[V]]#1 :
func.func @adamw(%lr: tensor<1xf32> {odt.name = "learning_rate", odt.role = "learning_rate"},
                 %step: tensor<1xi64> {odt.name = "step", odt.role = "step"},
                 %w: tensor<4x3xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                 %b: tensor<4xf32> {odt.name = "b", odt.role = "parameter", odt.param = 1 : i64},
                 %gw: tensor<4x3xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64},
                 %gb: tensor<4xf32> {odt.name = "b_grad", odt.role = "gradient_buffer", odt.param = 1 : i64},
                 %mw: tensor<4x3xf32> {odt.name = "w.momentum0", odt.role = "first_moment", odt.param = 0 : i64},
                 %mb: tensor<4xf32> {odt.name = "b.momentum0", odt.role = "first_moment", odt.param = 1 : i64},
                 %vw: tensor<4x3xf32> {odt.name = "w.momentum1", odt.role = "second_moment", odt.param = 0 : i64},
                 %vb: tensor<4xf32> {odt.name = "b.momentum1", odt.role = "second_moment", odt.param = 1 : i64})
    -> (tensor<1xi1> {odt.name = "updated_flag", odt.role = "updated_flag"}) {
  %0:7 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %b, %gw, %gb, %mw, %mb, %vw, %vb)
      : (tensor<1xf32>, tensor<1xi64>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>,
         tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
  return %0#0 : tensor<1xi1>
}

// -----

// SGD ties the updated weights only; gradients are read, not written.
// CHECK-LABEL: func.func @sgd
// CHECK-SAME:    -> (tensor<1xi1> {odt.name = "update_completed", odt.role = "updated_flag"},
// CHECK-SAME:        tensor<4xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter", odt.tied = 1 : i64})
// CHECK:         %[[DONE:.*]], %[[W:.*]] = onnx.ms.SGDOptimizerV2
// CHECK:         return %[[DONE]], %[[W]] : tensor<1xi1>, tensor<4xf32>
func.func @sgd(%lr: tensor<1xf32> {odt.name = "learning_rate", odt.role = "learning_rate"},
               %w: tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
               %g: tensor<4xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<1xi1> {odt.name = "update_completed", odt.role = "updated_flag"}) {
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %g) : (tensor<1xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1xi1>, tensor<4xf32>)
  return %0#0 : tensor<1xi1>
}

// -----

// A function without state updates (eval) keeps its results; declarations
// are left alone.
// CHECK-LABEL: func.func @eval
// CHECK-SAME:    -> (tensor<?x4xf32> {odt.name = "y", odt.role = "user_output"})
// CHECK-NEXT:    onnx.Relu
// CHECK-NEXT:    return
// CHECK:       func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @eval(%x: tensor<?x4xf32> {odt.name = "x", odt.role = "user_input"})
    -> (tensor<?x4xf32> {odt.name = "y", odt.role = "user_output"}) {
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// -----

// State lives only in graph inputs.
func.func @update_of_an_intermediate(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %none = onnx.NoValue
  %0 = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulatorV2' updates a value that is not a graph input; odt keeps state only in graph inputs}}
  %1:2 = onnx.ms.InPlaceAccumulatorV2(%0, %g, %none) : (tensor<4xf32>, tensor<4xf32>, none) -> (tensor<1xi1>, tensor<4xf32>)
  return %1#1 : tensor<4xf32>
}

// -----

// Two updates of one buffer: the second is reported, naming the argument.
func.func @updated_twice(%w: tensor<4xf32> {odt.name = "w_grad.accumulation.buffer", odt.role = "gradient_buffer"},
                         %g: tensor<4xf32>) -> tensor<4xf32> {
  %none = onnx.NoValue
  %0:2 = onnx.ms.InPlaceAccumulatorV2(%w, %g, %none) : (tensor<4xf32>, tensor<4xf32>, none) -> (tensor<1xi1>, tensor<4xf32>)
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulatorV2' updates argument 'w_grad.accumulation.buffer', which another node updates too}}
  %1:2 = onnx.ms.InPlaceAccumulatorV2(%w, %0#1, %none) : (tensor<4xf32>, tensor<4xf32>, none) -> (tensor<1xi1>, tensor<4xf32>)
  return %g : tensor<4xf32>
}

// -----

// An argument without odt.name is named by its number.
func.func @updated_twice_unnamed(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<1xf32>) -> tensor<4xf32> {
  %none = onnx.NoValue
  %0:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %g) : (tensor<1xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1xi1>, tensor<4xf32>)
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulatorV2' updates argument '#0', which another node updates too}}
  %1:2 = onnx.ms.InPlaceAccumulatorV2(%w, %g, %none) : (tensor<4xf32>, tensor<4xf32>, none) -> (tensor<1xi1>, tensor<4xf32>)
  return %g : tensor<4xf32>
}
