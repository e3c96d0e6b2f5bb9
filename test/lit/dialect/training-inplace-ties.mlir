// RUN: odt-opt %s --split-input-file --odt-assemble-training-program --verify-diagnostics | FileCheck %s

// ORT updates the buffers of InPlaceAccumulator, ZeroGradient and
// InplaceClipGradNorm in place; odt-assemble-training-program ties their
// results (odt.tied = argument number) to the arguments they overwrite.

// CHECK-LABEL: func.func @accumulate
// CHECK-SAME:    -> (tensor<4x3xf32> {odt.name = "acc", odt.role = "user_output"},
// CHECK-SAME:        tensor<4x3xf32> {odt.name = "w_grad.accumulation.buffer", odt.param = 0 : i64, odt.role = "gradient_buffer", odt.tied = 0 : i64},
// CHECK-SAME:        tensor<4xf32> {odt.name = "b_grad.accumulation.buffer", odt.param = 1 : i64, odt.role = "gradient_buffer", odt.tied = 2 : i64})
// CHECK:         %[[SUM:.*]] = onnx.ms.InPlaceAccumulator
// CHECK:         %[[ZERO:.*]] = onnx.ms.ZeroGradient
// CHECK:         return %[[SUM]], %[[SUM]], %[[ZERO]]
func.func @accumulate(%gw: tensor<4x3xf32> {odt.name = "w_grad.accumulation.buffer", odt.role = "gradient_buffer", odt.param = 0 : i64},
                      %dw: tensor<4x3xf32> {odt.name = "dw", odt.role = "user_input"},
                      %gb: tensor<4xf32> {odt.name = "b_grad.accumulation.buffer", odt.role = "gradient_buffer", odt.param = 1 : i64},
                      %flag: tensor<1xi1> {odt.name = "flag", odt.role = "user_input"})
    -> (tensor<4x3xf32> {odt.name = "acc", odt.role = "user_output"}) {
  %none = onnx.NoValue
  %0 = onnx.ms.InPlaceAccumulator(%gw, %dw, %none) : (tensor<4x3xf32>, tensor<4x3xf32>, none) -> tensor<4x3xf32>
  %1 = onnx.ms.ZeroGradient(%gb, %flag) : (tensor<4xf32>, tensor<1xi1>) -> tensor<4xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Clipped gradients are tied to the gradient buffers they come from; the
// optimizer reads the clipped values.
// CHECK-LABEL: func.func @clip
// CHECK-SAME:    -> (tensor<1xi1> {odt.name = "done", odt.role = "updated_flag"},
// CHECK-SAME:        tensor<4xf32> {odt.name = "g0", odt.param = 0 : i64, odt.role = "gradient_buffer", odt.tied = 2 : i64},
// CHECK-SAME:        tensor<4xf32> {odt.name = "w0", odt.param = 0 : i64, odt.role = "parameter", odt.tied = 1 : i64})
// CHECK:         %[[CLIPPED:.*]] = onnx.ms.InplaceClipGradNorm
// CHECK:         %[[DONE:.*]], %[[W:.*]] = onnx.ms.SGDOptimizerV2(%{{.*}}, %{{.*}}, %[[CLIPPED]])
// CHECK:         return %[[DONE]], %[[CLIPPED]], %[[W]]
func.func @clip(%lr: tensor<1xf32> {odt.name = "learning_rate", odt.role = "learning_rate"},
                %w: tensor<4xf32> {odt.name = "w0", odt.role = "parameter", odt.param = 0 : i64},
                %g: tensor<4xf32> {odt.name = "g0", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<1xi1> {odt.name = "done", odt.role = "updated_flag"}) {
  %0 = onnx.ms.InplaceClipGradNorm(%g) : (tensor<4xf32>) -> tensor<4xf32>
  %1:2 = onnx.ms.SGDOptimizerV2(%lr, %w, %0) : (tensor<1xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1xi1>, tensor<4xf32>)
  return %1#0 : tensor<1xi1>
}

// -----

func.func @accumulate_intermediate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %none = onnx.NoValue
  %sum = onnx.ms.InPlaceAccumulator(%a, %b, %none) : (tensor<4xf32>, tensor<4xf32>, none) -> tensor<4xf32>
  // expected-error @+1 {{node 'onnx.ms.InPlaceAccumulator' updates a value that is not a graph input; odt keeps state only in graph inputs}}
  %0 = onnx.ms.InPlaceAccumulator(%sum, %b, %none) : (tensor<4xf32>, tensor<4xf32>, none) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
