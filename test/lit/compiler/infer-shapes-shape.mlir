// RUN: odt-opt %s --split-input-file --odt-infer-shapes --verify-diagnostics | FileCheck %s

// Shape inference of the shape family: symbolic dims stay symbolic, products
// of symbols are dims (Flatten of [N, C, H, W] is [N, C*H*W]), and shape
// computations (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as PyTorch
// exports them) resolve at compile time through the values ShapeContext
// keeps for small integer tensors.

// The PyTorch flatten idiom: x.view(x.size(0), -1).
// CHECK-LABEL: func.func @reshape_from_shape_chain
// CHECK-SAME:    -> (tensor<?x784xf32> {onnx.dims = ["N", 784]})
// CHECK:         onnx.Shape(%{{.*}}) : (tensor<?x1x28x28xf32>) -> tensor<4xi64>
// CHECK:         onnx.Gather({{.*}}) : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
// CHECK:         onnx.Unsqueeze({{.*}}) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
// CHECK:         onnx.Concat({{.*}}) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK:         onnx.Reshape({{.*}}) : (tensor<?x1x28x28xf32>, tensor<2xi64>) -> tensor<?x784xf32>
func.func @reshape_from_shape_chain(%x: tensor<?x1x28x28xf32> {onnx.dims = ["N", 1, 28, 28]}) -> tensor<*xf32> {
  %s = onnx.Shape(%x) : (tensor<?x1x28x28xf32>) -> tensor<*xi64>
  %i = onnx.Constant {value = dense<0> : tensor<i64>} : tensor<i64>
  %n = onnx.Gather(%s, %i) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
  %axes = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
  %n1 = onnx.Unsqueeze(%n, %axes) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %rest = onnx.Constant {value = dense<-1> : tensor<1xi64>} : tensor<1xi64>
  %target = onnx.Concat(%n1, %rest) {axis = 0 : i64} : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %r = onnx.Reshape(%x, %target) : (tensor<?x1x28x28xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// The same chain after ORT's generator turned the Concat into
// com.microsoft ConcatTraining: the values flow through it too.
// CHECK-LABEL: func.func @reshape_from_concat_training
// CHECK-SAME:    -> (tensor<?x28x28xf32> {onnx.dims = ["N", 28, 28]})
// CHECK:         onnx.Reshape({{.*}}) : (tensor<?x1x28x28xf32>, tensor<3xi64>) -> tensor<?x28x28xf32>
func.func @reshape_from_concat_training(%x: tensor<?x1x28x28xf32> {onnx.dims = ["N", 1, 28, 28]}) -> tensor<*xf32> {
  %s = onnx.Shape(%x) : (tensor<?x1x28x28xf32>) -> tensor<*xi64>
  %i = onnx.Constant {value = dense<0> : tensor<i64>} : tensor<i64>
  %n = onnx.Gather(%s, %i) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
  %axes = onnx.Constant {value = dense<0> : tensor<1xi64>} : tensor<1xi64>
  %n1 = onnx.Unsqueeze(%n, %axes) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %rest = onnx.Constant {value = dense<[28, 28]> : tensor<2xi64>} : tensor<2xi64>
  %target, %lengths = onnx.ms.ConcatTraining(%n1, %rest) {axis = 0 : i64} : (tensor<*xi64>, tensor<2xi64>) -> (tensor<*xi64>, tensor<*xi64>)
  %r = onnx.Reshape(%x, %target) : (tensor<?x1x28x28xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// Products of symbols: Flatten of [N, C, H, W] with every dim symbolic.
// CHECK-LABEL: func.func @flatten_symbolic
// CHECK-SAME:    -> (tensor<?x?xf32> {onnx.dims = ["N", "C*H*W"]}, tensor<?x?xf32> {onnx.dims = ["N*C", "H*W"]}, tensor<1x?xf32> {onnx.dims = [1, "N*C*H*W"]})
func.func @flatten_symbolic(%x: tensor<?x?x?x?xf32> {onnx.dims = ["N", "C", "H", "W"]}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = onnx.Flatten(%x) : (tensor<?x?x?x?xf32>) -> tensor<*xf32>
  %1 = onnx.Flatten(%x) {axis = -2 : i64} : (tensor<?x?x?x?xf32>) -> tensor<*xf32>
  %2 = onnx.Flatten(%x) {axis = 0 : i64} : (tensor<?x?x?x?xf32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// -1 divides the element count by the other dims, symbols included; 0
// copies the input dim.
// CHECK-LABEL: func.func @reshape_inferred_dims
// CHECK-SAME:    -> (tensor<?x?x4xf32> {onnx.dims = ["N", "2*C", 4]}, tensor<?x2x2xf32> {onnx.dims = ["2*N*C", 2, 2]})
func.func @reshape_inferred_dims(%x: tensor<?x?x8xf32> {onnx.dims = ["N", "C", 8]}) -> (tensor<*xf32>, tensor<*xf32>) {
  %t0 = onnx.Constant {value = dense<[0, -1, 4]> : tensor<3xi64>} : tensor<3xi64>
  %0 = onnx.Reshape(%x, %t0) : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<*xf32>
  %t1 = onnx.Constant {value = dense<[-1, 2, 2]> : tensor<3xi64>} : tensor<3xi64>
  %1 = onnx.Reshape(%x, %t1) : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
