// RUN: odt-opt %s --split-input-file | odt-opt --split-input-file | FileCheck %s
// RUN: odt-opt %s --split-input-file --mlir-print-op-generic | odt-opt --split-input-file | FileCheck %s

// Every op of the Elementwise family parses, prints and parses again, in the
// custom form (first RUN) and the generic form (second RUN). Attributes equal
// to their ONNX default are elided when printed.

// CHECK-LABEL: func.func @arithmetic
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<3xi64>, %[[U:.*]]: tensor<3xui8>, %[[E:.*]]: tensor<3xi32>)
// CHECK:         %[[ADD:.*]] = onnx.Add(%[[A]], %[[B]]) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK:         %[[SUB:.*]] = onnx.Sub(%[[I]], %[[I]]) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK:         %[[MUL:.*]] = onnx.Mul(%[[U]], %[[U]]) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
// CHECK:         %[[DIV:.*]] = onnx.Div(%[[A]], %[[B]]) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<*xf32>
// CHECK:         %[[POW:.*]] = onnx.Pow(%[[B]], %[[E]]) : (tensor<4xf32>, tensor<3xi32>) -> tensor<*xf32>
// CHECK:         %[[NEG:.*]] = onnx.Neg(%[[I]]) : (tensor<3xi64>) -> tensor<3xi64>
// CHECK:         %[[ABS:.*]] = onnx.Abs(%[[U]]) : (tensor<3xui8>) -> tensor<3xui8>
// CHECK:         return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[POW]], %[[NEG]], %[[ABS]]
func.func @arithmetic(%a: tensor<?x4xf32>, %b: tensor<4xf32>, %i: tensor<3xi64>, %u: tensor<3xui8>, %e: tensor<3xi32>)
    -> (tensor<?x4xf32>, tensor<3xi64>, tensor<3xui8>, tensor<*xf32>, tensor<*xf32>, tensor<3xi64>, tensor<3xui8>) {
  %0 = onnx.Add(%a, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = onnx.Sub(%i, %i) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %2 = onnx.Mul(%u, %u) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %3 = onnx.Div(%a, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<*xf32>
  %4 = onnx.Pow(%b, %e) : (tensor<4xf32>, tensor<3xi32>) -> tensor<*xf32>
  %5 = onnx.Neg(%i) : (tensor<3xi64>) -> tensor<3xi64>
  %6 = onnx.Abs(%u) : (tensor<3xui8>) -> tensor<3xui8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x4xf32>, tensor<3xi64>, tensor<3xui8>, tensor<*xf32>, tensor<*xf32>, tensor<3xi64>, tensor<3xui8>
}

// -----

// CHECK-LABEL: func.func @float_math
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf16>)
// CHECK:         onnx.Sqrt(%[[X]]) : (tensor<2x3xf16>) -> tensor<2x3xf16>
// CHECK:         onnx.Reciprocal(%[[X]])
// CHECK:         onnx.Exp(%[[X]])
// CHECK:         onnx.Log(%[[X]])
// CHECK:         onnx.Tanh(%[[X]])
// CHECK:         onnx.Sigmoid(%[[X]])
// CHECK:         onnx.Erf(%[[X]])
// CHECK:         onnx.Sin(%[[X]])
// CHECK:         onnx.Cos(%[[X]])
// CHECK:         onnx.Softplus(%[[X]])
// CHECK:         onnx.Atan(%[[X]])
func.func @float_math(%x: tensor<2x3xf16>) {
  %0 = onnx.Sqrt(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %1 = onnx.Reciprocal(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %2 = onnx.Exp(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %3 = onnx.Log(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %4 = onnx.Tanh(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %5 = onnx.Sigmoid(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %6 = onnx.Erf(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %7 = onnx.Sin(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %8 = onnx.Cos(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %9 = onnx.Softplus(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %10 = onnx.Atan(%x) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  return
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xbf16>, %[[I:.*]]: tensor<4xi8>)
// CHECK:         onnx.Relu(%[[X]]) : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
// CHECK:         onnx.Relu(%[[I]]) : (tensor<4xi8>) -> tensor<4xi8>
// CHECK:         onnx.LeakyRelu(%[[X]]) : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
// CHECK:         onnx.LeakyRelu(%[[X]]) {alpha = 2.000000e-01 : f32}
// CHECK:         onnx.Elu(%[[X]]) {alpha = 5.000000e-01 : f32}
// CHECK:         onnx.HardSigmoid(%[[X]]) {alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32}
// CHECK:         onnx.Gelu(%[[X]]) : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
// CHECK:         onnx.Gelu(%[[X]]) {approximate = "tanh"}
func.func @activations(%x: tensor<?x8xbf16>, %i: tensor<4xi8>) {
  %0 = onnx.Relu(%x) : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %1 = onnx.Relu(%i) : (tensor<4xi8>) -> tensor<4xi8>
  %2 = onnx.LeakyRelu(%x) {alpha = 0.01 : f32} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %3 = onnx.LeakyRelu(%x) {alpha = 0.2 : f32} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %4 = onnx.Elu(%x) {alpha = 0.5 : f32} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %5 = onnx.HardSigmoid(%x) {alpha = 1.0 : f32, beta = 0.0 : f32} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %6 = onnx.Gelu(%x) {approximate = "none"} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %7 = onnx.Gelu(%x) {approximate = "tanh"} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return
}

// -----

// Clip's bounds are optional inputs; Min and Max take one or more inputs.
// CHECK-LABEL: func.func @clip_min_max
// CHECK-SAME:    (%[[X:.*]]: tensor<3x4xi8>, %[[LO:.*]]: tensor<i8>, %[[Y:.*]]: tensor<4xi8>)
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         onnx.Clip(%[[X]], %[[LO]], %[[NONE]]) : (tensor<3x4xi8>, tensor<i8>, none) -> tensor<3x4xi8>
// CHECK:         onnx.Clip(%[[X]], %[[NONE]], %[[NONE]]) : (tensor<3x4xi8>, none, none) -> tensor<3x4xi8>
// CHECK:         onnx.Max(%[[X]]) : (tensor<3x4xi8>) -> tensor<3x4xi8>
// CHECK:         onnx.Max(%[[X]], %[[Y]], %[[LO]]) : (tensor<3x4xi8>, tensor<4xi8>, tensor<i8>) -> tensor<3x4xi8>
// CHECK:         onnx.Min(%[[Y]], %[[X]]) : (tensor<4xi8>, tensor<3x4xi8>) -> tensor<3x4xi8>
func.func @clip_min_max(%x: tensor<3x4xi8>, %lo: tensor<i8>, %y: tensor<4xi8>) {
  %none = onnx.NoValue
  %0 = onnx.Clip(%x, %lo, %none) : (tensor<3x4xi8>, tensor<i8>, none) -> tensor<3x4xi8>
  %1 = onnx.Clip(%x, %none, %none) : (tensor<3x4xi8>, none, none) -> tensor<3x4xi8>
  %2 = onnx.Max(%x) : (tensor<3x4xi8>) -> tensor<3x4xi8>
  %3 = onnx.Max(%x, %y, %lo) : (tensor<3x4xi8>, tensor<4xi8>, tensor<i8>) -> tensor<3x4xi8>
  %4 = onnx.Min(%y, %x) : (tensor<4xi8>, tensor<3x4xi8>) -> tensor<3x4xi8>
  return
}

// -----

// CHECK-LABEL: func.func @logic
// CHECK-SAME:    (%[[C:.*]]: tensor<?x1xi1>, %[[X:.*]]: tensor<3xf64>, %[[D:.*]]: tensor<3xi1>)
// CHECK:         onnx.Where(%[[C]], %[[X]], %[[X]]) : (tensor<?x1xi1>, tensor<3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
// CHECK:         onnx.Equal(%[[X]], %[[X]]) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
// CHECK:         onnx.Equal(%[[D]], %[[D]]) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
// CHECK:         onnx.Less(%[[X]], %[[X]])
// CHECK:         onnx.Greater(%[[X]], %[[X]])
// CHECK:         onnx.Not(%[[D]]) : (tensor<3xi1>) -> tensor<3xi1>
// CHECK:         onnx.And(%[[C]], %[[D]]) : (tensor<?x1xi1>, tensor<3xi1>) -> tensor<?x3xi1>
// CHECK:         onnx.Or(%[[D]], %[[D]])
func.func @logic(%c: tensor<?x1xi1>, %x: tensor<3xf64>, %d: tensor<3xi1>) {
  %0 = onnx.Where(%c, %x, %x) : (tensor<?x1xi1>, tensor<3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
  %1 = onnx.Equal(%x, %x) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
  %2 = onnx.Equal(%d, %d) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = onnx.Less(%x, %x) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
  %4 = onnx.Greater(%x, %x) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
  %5 = onnx.Not(%d) : (tensor<3xi1>) -> tensor<3xi1>
  %6 = onnx.And(%c, %d) : (tensor<?x1xi1>, tensor<3xi1>) -> tensor<?x3xi1>
  %7 = onnx.Or(%d, %d) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

// CHECK-LABEL: func.func @cast_dropout
// CHECK-SAME:    (%[[X:.*]]: tensor<?x5xf32>, %[[R:.*]]: tensor<f32>, %[[T:.*]]: tensor<i1>)
// CHECK:         onnx.Cast(%[[X]]) {to = 10 : i64} : (tensor<?x5xf32>) -> tensor<?x5xf16>
// CHECK:         onnx.Cast(%[[X]]) {saturate = 0 : i64, to = 2 : i64} : (tensor<?x5xf32>) -> tensor<?x5xui8>
// CHECK:         %[[NONE:.*]] = onnx.NoValue
// CHECK:         onnx.Dropout(%[[X]], %[[NONE]], %[[NONE]]) : (tensor<?x5xf32>, none, none) -> (tensor<?x5xf32>, tensor<?x5xi1>)
// CHECK:         onnx.Dropout(%[[X]], %[[R]], %[[T]]) {seed = 7 : i64} : (tensor<?x5xf32>, tensor<f32>, tensor<i1>) -> (tensor<?x5xf32>, tensor<?x5xi1>)
func.func @cast_dropout(%x: tensor<?x5xf32>, %r: tensor<f32>, %t: tensor<i1>) {
  %0 = onnx.Cast(%x) {to = 10 : i64} : (tensor<?x5xf32>) -> tensor<?x5xf16>
  %1 = onnx.Cast(%x) {to = 2 : i64, saturate = 0 : i64} : (tensor<?x5xf32>) -> tensor<?x5xui8>
  %none = onnx.NoValue
  %2:2 = onnx.Dropout(%x, %none, %none) : (tensor<?x5xf32>, none, none) -> (tensor<?x5xf32>, tensor<?x5xi1>)
  %3:2 = onnx.Dropout(%x, %r, %t) {seed = 7 : i64} : (tensor<?x5xf32>, tensor<f32>, tensor<i1>) -> (tensor<?x5xf32>, tensor<?x5xi1>)
  return
}
