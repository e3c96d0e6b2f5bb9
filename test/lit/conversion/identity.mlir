// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.Identity forwards its operand (value semantics: no copy is made at
// tensor level); a more static result type becomes a tensor.cast.

// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xi64>)
// CHECK-NEXT:    return %[[X]] : tensor<?x4xi64>
func.func @identity(%x: tensor<?x4xi64>) -> tensor<?x4xi64> {
  %0 = onnx.Identity(%x) : (tensor<?x4xi64>) -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// CHECK-LABEL: func.func @identity_refined
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT:    %[[CAST:.*]] = tensor.cast %[[X]] : tensor<?x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    return %[[CAST]] : tensor<2x4xf32>
func.func @identity_refined(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = onnx.Identity(%x) : (tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
