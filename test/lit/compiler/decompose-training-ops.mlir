// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-decompose-training-ops))' | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-decompose-training-ops), odt-convert-onnx-to-linalg, canonicalize, cse, odt-fuse-elementwise)' | FileCheck %s --check-prefix=FUSED

// com.microsoft ops that are compositions of ai.onnx ops become those ops,
// and the composition still lowers to one loop.

// CHECK-LABEL: func.func @relu_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<?x500xf32>, %[[X:.*]]: tensor<?x500xf32>)
// CHECK:         %[[ZERO:.*]] = onnx.Constant {value = dense<0.000000e+00> : tensor<f32>}
// CHECK:         %[[POS:.*]] = onnx.Greater(%[[X]], %[[ZERO]]) : (tensor<?x500xf32>, tensor<f32>) -> tensor<?x500xi1>
// CHECK:         %[[ZERO2:.*]] = onnx.Constant {value = dense<0.000000e+00> : tensor<f32>}
// CHECK:         %[[DX:.*]] = onnx.Where(%[[POS]], %[[DY]], %[[ZERO2]])
// CHECK-NOT:     onnx.ms.ReluGrad
// CHECK:         return %[[DX]]
// FUSED-LABEL:   func.func @relu_grad
// FUSED-COUNT-1: linalg.generic
// FUSED-NOT:     linalg.generic
// FUSED:         arith.cmpf ogt
// FUSED:         arith.select
func.func @relu_grad(%dy: tensor<?x500xf32>, %x: tensor<?x500xf32>) -> tensor<?x500xf32> {
  %0 = onnx.ms.ReluGrad(%dy, %x) : (tensor<?x500xf32>, tensor<?x500xf32>) -> tensor<?x500xf32>
  return %0 : tensor<?x500xf32>
}

// -----

// CHECK-LABEL: func.func @sigmoid_tanh_leaky
// CHECK:         onnx.Sub
// CHECK:         onnx.Mul
// CHECK:         onnx.Mul
// CHECK:         onnx.Mul
// CHECK:         onnx.Sub
// CHECK:         onnx.Mul
// CHECK:         onnx.Constant {value = dense<2.000000e-01> : tensor<f32>}
// CHECK:         onnx.Greater
// CHECK:         onnx.Where
// CHECK-NOT:     onnx.ms.
// FUSED-LABEL:   func.func @sigmoid_tanh_leaky
// FUSED-COUNT-3: linalg.generic
// FUSED-NOT:     linalg.generic
func.func @sigmoid_tanh_leaky(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = onnx.ms.SigmoidGrad(%dy, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.ms.TanhGrad(%dy, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.ms.LeakyReluGrad(%dy, %y) {alpha = 2.000000e-01 : f32} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @gelus
// CHECK:         onnx.Gelu(%{{.*}}) : (tensor<4x8xf32>)
// CHECK:         %[[SUM:.*]] = onnx.Add
// CHECK:         onnx.Gelu(%[[SUM]]) : (tensor<4x8xf32>)
// CHECK:         %[[SUM2:.*]] = onnx.Add
// CHECK:         onnx.Gelu(%[[SUM2]]) {approximate = "tanh"}
// CHECK-NOT:     onnx.ms.
// FUSED-LABEL:   func.func @gelus
func.func @gelus(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = onnx.ms.Gelu(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.ms.BiasGelu(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = onnx.ms.FastGelu(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A ReLU gradient's mask X > 0 reads Relu(X) when the graph computes it
// before the mask (the same mask), so X is read by the Relu alone; a mask
// of a value without a Relu, or against a nonzero constant, stays.
// CHECK-LABEL: func.func @mask_from_relu_output
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?x6x28x28xf32>, %[[DY:.*]]: tensor<?x6x28x28xf32>, %[[Z:.*]]: tensor<?x6x28x28xf32>)
// CHECK:         %[[Y:.*]] = onnx.Relu(%[[X]])
// CHECK:         onnx.Greater(%[[Y]], %{{.*}})
// CHECK:         onnx.Greater(%[[Z]], %{{.*}})
// CHECK:         onnx.Greater(%[[X]], %[[ONE:.*]])
func.func @mask_from_relu_output(%x: tensor<?x6x28x28xf32>, %dy: tensor<?x6x28x28xf32>, %z: tensor<?x6x28x28xf32>)
    -> (tensor<?x6x28x28xf32>, tensor<?x6x28x28xi1>, tensor<?x6x28x28xi1>, tensor<?x6x28x28xi1>) {
  %zero = onnx.Constant {value = dense<0.0> : tensor<f32>} : tensor<f32>
  %one = onnx.Constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
  %y = onnx.Relu(%x) : (tensor<?x6x28x28xf32>) -> tensor<?x6x28x28xf32>
  %m = onnx.Greater(%x, %zero) : (tensor<?x6x28x28xf32>, tensor<f32>) -> tensor<?x6x28x28xi1>
  %n = onnx.Greater(%z, %zero) : (tensor<?x6x28x28xf32>, tensor<f32>) -> tensor<?x6x28x28xi1>
  %o = onnx.Greater(%x, %one) : (tensor<?x6x28x28xf32>, tensor<f32>) -> tensor<?x6x28x28xi1>
  return %y, %m, %n, %o : tensor<?x6x28x28xf32>, tensor<?x6x28x28xi1>, tensor<?x6x28x28xi1>, tensor<?x6x28x28xi1>
}
