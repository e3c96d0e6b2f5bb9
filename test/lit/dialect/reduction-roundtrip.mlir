// RUN: odt-opt %s --split-input-file | FileCheck %s
// RUN: odt-opt %s --split-input-file | odt-opt --split-input-file | FileCheck %s

// Every op of the Reduction family prints and parses back unchanged, with
// attributes at their ONNX names (defaults elided).

// Reduce*: axes as an attribute (opsets 13-17) or an input (18+).
// CHECK-LABEL: func.func @reduce_forms
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4x5xf32>, %[[A:.*]]: tensor<1xi64>)
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         %{{.*}} = onnx.ReduceMean(%[[X]], %[[NONE]]) {axes = array<i64: 1, -1>, keepdims = 0 : i64} : (tensor<?x4x5xf32>, none) -> tensor<?xf32>
// CHECK:         %{{.*}} = onnx.ReduceMax(%[[X]], %[[A]]) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
// CHECK:         %{{.*}} = onnx.ReduceMin(%[[X]], %[[NONE]]) {noop_with_empty_axes = 1 : i64} : (tensor<?x4x5xf32>, none) -> tensor<?x4x5xf32>
// CHECK:         %{{.*}} = onnx.ReduceL2(%[[X]], %[[NONE]]) {axes = array<i64: 0>} : (tensor<?x4x5xf32>, none) -> tensor<1x4x5xf32>
// CHECK:         %{{.*}} = onnx.ReduceLogSumExp(%[[X]], %[[A]]) {keepdims = 0 : i64} : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
// CHECK:         %{{.*}} = onnx.ReduceSum(%[[X]], %[[A]]) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
func.func @reduce_forms(%x: tensor<?x4x5xf32>, %a: tensor<1xi64>) {
  %none = onnx.NoValue
  %0 = onnx.ReduceMean(%x, %none) {axes = array<i64: 1, -1>, keepdims = 0 : i64} : (tensor<?x4x5xf32>, none) -> tensor<?xf32>
  %1 = onnx.ReduceMax(%x, %a) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %2 = onnx.ReduceMin(%x, %none) {noop_with_empty_axes = 1 : i64} : (tensor<?x4x5xf32>, none) -> tensor<?x4x5xf32>
  %3 = onnx.ReduceL2(%x, %none) {axes = array<i64: 0>} : (tensor<?x4x5xf32>, none) -> tensor<1x4x5xf32>
  %4 = onnx.ReduceLogSumExp(%x, %a) {keepdims = 0 : i64} : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %5 = onnx.ReduceSum(%x, %a) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

// Integer and unsigned element types.
// CHECK-LABEL: func.func @reduce_integers
// CHECK:         onnx.ReduceSum(%{{.*}}, %{{.*}}) : (tensor<3x4xi32>, none) -> tensor<1x1xi32>
// CHECK:         onnx.ReduceMax(%{{.*}}, %{{.*}}) {axes = array<i64: 1>} : (tensor<3x4xui8>, none) -> tensor<3x1xui8>
// CHECK:         onnx.ReduceMin(%{{.*}}, %{{.*}}) : (tensor<3x4xi1>, none) -> tensor<1x1xi1>
func.func @reduce_integers(%x: tensor<3x4xi32>, %u: tensor<3x4xui8>, %b: tensor<3x4xi1>) {
  %none = onnx.NoValue
  %0 = onnx.ReduceSum(%x, %none) : (tensor<3x4xi32>, none) -> tensor<1x1xi32>
  %1 = onnx.ReduceMax(%u, %none) {axes = array<i64: 1>} : (tensor<3x4xui8>, none) -> tensor<3x1xui8>
  %2 = onnx.ReduceMin(%b, %none) : (tensor<3x4xi1>, none) -> tensor<1x1xi1>
  return
}

// -----

// CHECK-LABEL: func.func @index_ops
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[K:.*]]: tensor<1xi64>, %[[AX:.*]]: tensor<i32>)
// CHECK:         %{{.*}} = onnx.ArgMax(%[[X]]) {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<?x8xf32>) -> tensor<?xi64>
// CHECK:         = onnx.TopK(%[[X]], %[[K]]) {largest = 0 : i64, sorted = 0 : i64} : (tensor<?x8xf32>, tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
// CHECK:         %{{.*}} = onnx.CumSum(%[[X]], %[[AX]]) {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<?x8xf32>, tensor<i32>) -> tensor<?x8xf32>
func.func @index_ops(%x: tensor<?x8xf32>, %k: tensor<1xi64>, %ax: tensor<i32>) {
  %0 = onnx.ArgMax(%x) {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<?x8xf32>) -> tensor<?xi64>
  %1:2 = onnx.TopK(%x, %k) {largest = 0 : i64, sorted = 0 : i64} : (tensor<?x8xf32>, tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  %2 = onnx.CumSum(%x, %ax) {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<?x8xf32>, tensor<i32>) -> tensor<?x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @normalizations
// CHECK:         onnx.Softmax(%{{.*}}) : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.LogSoftmax(%{{.*}}) {axis = 0 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         onnx.LayerNormalization(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<?x8xf32>, tensor<8xf32>, none) -> (tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
// CHECK:         onnx.BatchNormalization(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {momentum = 5.000000e-01 : f32, training_mode = 1 : i64} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>)
func.func @normalizations(%x: tensor<?x8xf32>, %s: tensor<8xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Softmax(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = onnx.LogSoftmax(%x) {axis = 0 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %2:3 = onnx.LayerNormalization(%x, %s, %none) {axis = 1 : i64, epsilon = 1.0e-3 : f32} : (tensor<?x8xf32>, tensor<8xf32>, none) -> (tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
  %3:3 = onnx.BatchNormalization(%x, %s, %s, %s, %s) {momentum = 0.5 : f32, training_mode = 1 : i64} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @losses_and_einsum
// CHECK:         onnx.NegativeLogLikelihoodLoss(%{{.*}}, %{{.*}}, %{{.*}}) {ignore_index = -1 : i64, reduction = "sum"} : (tensor<?x5x3xf32>, tensor<?x3xi64>, tensor<5xf32>) -> tensor<f32>
// CHECK:         onnx.Einsum(%{{.*}}, %{{.*}}) {equation = "bij,bjk->bik"} : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
func.func @losses_and_einsum(%x: tensor<?x5x3xf32>, %t: tensor<?x3xi64>, %w: tensor<5xf32>, %a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>) {
  %0 = onnx.NegativeLogLikelihoodLoss(%x, %t, %w) {ignore_index = -1 : i64, reduction = "sum"} : (tensor<?x5x3xf32>, tensor<?x3xi64>, tensor<5xf32>) -> tensor<f32>
  %1 = onnx.Einsum(%a, %b) {equation = "bij,bjk->bik"} : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  return
}
