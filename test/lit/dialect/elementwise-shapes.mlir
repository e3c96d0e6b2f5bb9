// RUN: odt-opt %s --split-input-file --odt-infer-shapes --verify-diagnostics | FileCheck %s

// Shape inference of the Elementwise family: ONNX multidirectional
// broadcasting (trailing dims align, static 1s broadcast), symbolic dims that
// meet are unified, result element types as each op defines them.

// Static 1s broadcast both ways; a rank-1 operand aligns to the last dim.
// CHECK-LABEL: func.func @broadcast_static
// CHECK-SAME:    -> (tensor<2x3x4xf32> {onnx.dims = [2, 3, 4]}, tensor<5x3xi64> {onnx.dims = [5, 3]}, tensor<f64> {onnx.dims = []})
// CHECK:         onnx.Add(%{{.*}}, %{{.*}}) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK:         onnx.Mul(%{{.*}}, %{{.*}}) : (tensor<5x1xi64>, tensor<3xi64>) -> tensor<5x3xi64>
// CHECK:         onnx.Sub(%{{.*}}, %{{.*}}) : (tensor<f64>, tensor<f64>) -> tensor<f64>
func.func @broadcast_static(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %i: tensor<5x1xi64>, %j: tensor<3xi64>, %s: tensor<f64>)
    -> (tensor<*xf32>, tensor<*xi64>, tensor<*xf64>) {
  %0 = onnx.Add(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %1 = onnx.Mul(%i, %j) : (tensor<5x1xi64>, tensor<3xi64>) -> tensor<*xi64>
  %2 = onnx.Sub(%s, %s) : (tensor<f64>, tensor<f64>) -> tensor<*xf64>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xi64>, tensor<*xf64>
}

// -----

// Symbolic dims: N meets M and they become one symbol (the older name wins);
// a symbol meeting a static size binds to it; a static 1 takes the other
// side's symbol.
// CHECK-LABEL: func.func @broadcast_symbolic
// CHECK-SAME:    (%{{.*}}: tensor<?x4xf32> {onnx.dims = ["N", 4]}, %{{.*}}: tensor<?x4xf32> {onnx.dims = ["N", 4]}, %{{.*}}: tensor<1x4xf32> {onnx.dims = [1, 4]}, %{{.*}}: tensor<4xf32> {onnx.dims = [4]})
// CHECK-SAME:    -> (tensor<?x4xf32> {onnx.dims = ["N", 4]}, tensor<?x4xf32> {onnx.dims = ["N", 4]}, tensor<?x4xf32> {onnx.dims = ["N", 4]})
// CHECK:         onnx.Div(%{{.*}}, %{{.*}}) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK:         onnx.Sub(%{{.*}}, %{{.*}}) : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK:         onnx.Pow(%{{.*}}, %{{.*}}) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
func.func @broadcast_symbolic(%x: tensor<?x?xf32> {onnx.dims = ["N", "K"]}, %y: tensor<?x4xf32> {onnx.dims = ["M", 4]},
                              %one: tensor<1x4xf32>, %k: tensor<?xf32> {onnx.dims = ["K"]})
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = onnx.Div(%x, %y) : (tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<*xf32>
  %1 = onnx.Sub(%one, %0) : (tensor<1x4xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = onnx.Pow(%x, %k) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Result element types: comparisons give i1, Pow keeps X's type, Cast gives
// `to`'s, Dropout's mask is i1, Where takes X's.
// CHECK-LABEL: func.func @element_types
// CHECK:         onnx.Equal({{.*}}) : (tensor<?x3xui16>, tensor<3xui16>) -> tensor<?x3xi1>
// CHECK:         onnx.Less({{.*}}) : (tensor<?x3xui16>, tensor<3xui16>) -> tensor<?x3xi1>
// CHECK:         onnx.Greater({{.*}}) : (tensor<?x3xui16>, tensor<3xui16>) -> tensor<?x3xi1>
// CHECK:         onnx.Pow({{.*}}) : (tensor<3xi32>, tensor<?x3xui16>) -> tensor<?x3xi32>
// CHECK:         onnx.Cast({{.*}}) {to = 16 : i64} : (tensor<?x3xui16>) -> tensor<?x3xbf16>
// CHECK:         onnx.Cast({{.*}}) {to = 9 : i64} : (tensor<3xi32>) -> tensor<3xi1>
// CHECK:         onnx.Dropout({{.*}}) : (tensor<2x?xf16>, none, none) -> (tensor<2x?xf16>, tensor<2x?xi1>)
// CHECK:         onnx.Where({{.*}}) : (tensor<?x3xi1>, tensor<3xi32>, tensor<1xi32>) -> tensor<?x3xi32>
// CHECK:         onnx.Not({{.*}}) : (tensor<?x3xi1>) -> tensor<?x3xi1>
// CHECK:         onnx.And({{.*}}) : (tensor<?x3xi1>, tensor<3xi1>) -> tensor<?x3xi1>
// CHECK:         onnx.Or({{.*}}) : (tensor<?x3xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
func.func @element_types(%u: tensor<?x3xui16>, %v: tensor<3xui16>, %i: tensor<3xi32>, %h: tensor<2x?xf16>, %one: tensor<1xi32>)
    -> (tensor<*xi1>, tensor<*xi1>, tensor<*xi1>, tensor<*xi32>, tensor<*xbf16>, tensor<*xi1>, tensor<*xf16>, tensor<*xi1>, tensor<*xi32>, tensor<*xi1>) {
  %none = onnx.NoValue
  %0 = onnx.Equal(%u, %v) : (tensor<?x3xui16>, tensor<3xui16>) -> tensor<*xi1>
  %1 = onnx.Less(%u, %v) : (tensor<?x3xui16>, tensor<3xui16>) -> tensor<*xi1>
  %2 = onnx.Greater(%u, %v) : (tensor<?x3xui16>, tensor<3xui16>) -> tensor<*xi1>
  %3 = onnx.Pow(%i, %u) : (tensor<3xi32>, tensor<?x3xui16>) -> tensor<*xi32>
  %4 = onnx.Cast(%u) {to = 16 : i64} : (tensor<?x3xui16>) -> tensor<*xbf16>
  %5 = onnx.Cast(%i) {to = 9 : i64} : (tensor<3xi32>) -> tensor<*xi1>
  %6:2 = onnx.Dropout(%h, %none, %none) : (tensor<2x?xf16>, none, none) -> (tensor<*xf16>, tensor<*xi1>)
  %7 = onnx.Where(%0, %i, %one) : (tensor<*xi1>, tensor<3xi32>, tensor<1xi32>) -> tensor<*xi32>
  %8 = onnx.Not(%1) : (tensor<*xi1>) -> tensor<*xi1>
  %9 = onnx.And(%8, %5) : (tensor<*xi1>, tensor<*xi1>) -> tensor<*xi1>
  %10 = onnx.Or(%9, %2) : (tensor<*xi1>, tensor<*xi1>) -> tensor<*xi1>
  return %0, %2, %10, %3, %4, %5, %6#0, %6#1, %7, %9 : tensor<*xi1>, tensor<*xi1>, tensor<*xi1>, tensor<*xi32>, tensor<*xbf16>, tensor<*xi1>, tensor<*xf16>, tensor<*xi1>, tensor<*xi32>, tensor<*xi1>
}

// -----

// Variadic Max and Min broadcast all their inputs; Where broadcasts three.
// CHECK-LABEL: func.func @variadic
// CHECK-SAME:    -> (tensor<2x3x4xi8> {onnx.dims = [2, 3, 4]}, tensor<?x5xf32> {onnx.dims = ["B", 5]}, tensor<?x1xf32> {onnx.dims = ["B", 1]}, tensor<2x?x5xf32> {onnx.dims = [2, "B", 5]})
func.func @variadic(%a: tensor<4xi8>, %b: tensor<3x1xi8>, %c: tensor<2x1x1xi8>,
                    %x: tensor<?x1xf32> {onnx.dims = ["B", 1]}, %y: tensor<5xf32>, %cond: tensor<2x1x1xi1>)
    -> (tensor<*xi8>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = onnx.Max(%a, %b, %c) : (tensor<4xi8>, tensor<3x1xi8>, tensor<2x1x1xi8>) -> tensor<*xi8>
  %1 = onnx.Min(%x, %y) : (tensor<?x1xf32>, tensor<5xf32>) -> tensor<*xf32>
  %2 = onnx.Max(%x) : (tensor<?x1xf32>) -> tensor<*xf32>
  %3 = onnx.Where(%cond, %x, %y) : (tensor<2x1x1xi1>, tensor<?x1xf32>, tensor<5xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xi8>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Unary ops keep the shape and element type.
// CHECK-LABEL: func.func @unary
// CHECK-SAME:    -> (tensor<?x7xbf16> {onnx.dims = ["T", 7]}, tensor<?x7xbf16> {onnx.dims = ["T", 7]}, tensor<?x7xbf16> {onnx.dims = ["T", 7]})
// CHECK:         onnx.Clip({{.*}}) : (tensor<?x7xbf16>, tensor<bf16>, none) -> tensor<?x7xbf16>
func.func @unary(%x: tensor<?x7xbf16> {onnx.dims = ["T", 7]}, %lo: tensor<bf16>)
    -> (tensor<*xbf16>, tensor<*xbf16>, tensor<*xbf16>) {
  %none = onnx.NoValue
  %0 = onnx.Gelu(%x) : (tensor<?x7xbf16>) -> tensor<*xbf16>
  %1 = onnx.Clip(%x, %lo, %none) : (tensor<?x7xbf16>, tensor<bf16>, none) -> tensor<*xbf16>
  %2 = onnx.HardSigmoid(%1) : (tensor<*xbf16>) -> tensor<*xbf16>
  return %0, %1, %2 : tensor<*xbf16>, tensor<*xbf16>, tensor<*xbf16>
}

// -----

// Static dims that cannot broadcast: one error naming the node and both
// shapes.
func.func @cannot_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'add1' (onnx.Add): shapes [2, 3] and [4] cannot broadcast (dim 3 vs 4)}}
  %0 = onnx.Add(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<*xf32> loc("add1")
  return %0 : tensor<*xf32>
}

// -----

// A symbol bound earlier (K = 3 by the first Add) that then meets 4.
func.func @bound_symbol_cannot_broadcast(%x: tensor<?xf32> {onnx.dims = ["K"]}, %three: tensor<3xf32>, %four: tensor<4xf32>) -> tensor<*xf32> {
  %0 = onnx.Add(%x, %three) : (tensor<?xf32>, tensor<3xf32>) -> tensor<*xf32>
  // expected-error @+1 {{node 'onnx.Mul' (onnx.Mul): shapes [3] and [4] cannot broadcast (dim 3 vs 4)}}
  %1 = onnx.Mul(%x, %four) : (tensor<?xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Variadic: the third input meets the broadcast of the first two.
func.func @variadic_cannot_broadcast(%a: tensor<3x1xf32>, %b: tensor<1x4xf32>, %c: tensor<5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Max' (onnx.Max): shapes [3, 4] and [5] cannot broadcast (dim 4 vs 5)}}
  %0 = onnx.Max(%a, %b, %c) : (tensor<3x1xf32>, tensor<1x4xf32>, tensor<5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
