// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.Constant (initializers, Constant nodes) becomes arith.constant with
// the same value; onnx.NoValue disappears with its last user.

// CHECK-LABEL: func.func @constants
// CHECK-DAG:     %[[F:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[I:.*]] = arith.constant dense<[0, -1]> : tensor<2xi64>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<true> : tensor<1xi1>
// CHECK-NOT:     onnx.
// CHECK:         return %[[F]], %[[I]], %[[B]] : tensor<2xf32>, tensor<2xi64>, tensor<1xi1>
func.func @constants() -> (tensor<2xf32>, tensor<2xi64>, tensor<1xi1>) {
  %0 = onnx.Constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %1 = onnx.Constant {value = dense<[0, -1]> : tensor<2xi64>} : tensor<2xi64>
  %2 = onnx.Constant {value = dense<true> : tensor<1xi1>} : tensor<1xi1>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xi64>, tensor<1xi1>
}

// -----

// A constant feeding a lowered op is read by it directly.
// CHECK-LABEL: func.func @constant_operand
// CHECK:         %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<3xf32>)
// CHECK-NOT:     onnx.NoValue
func.func @constant_operand() -> tensor<3xf32> {
  %none = onnx.NoValue
  %0 = onnx.Constant {value = dense<0.5> : tensor<3xf32>} : tensor<3xf32>
  %1 = onnx.Relu(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
