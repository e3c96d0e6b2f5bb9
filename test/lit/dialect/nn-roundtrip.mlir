// RUN: odt-opt %s --split-input-file | odt-opt --split-input-file | FileCheck %s
// RUN: odt-opt %s --split-input-file --mlir-print-op-generic | odt-opt --split-input-file | FileCheck %s

// The NN family's ops parse, print and parse again (custom and generic
// forms), with every attribute under its ONNX name.

// CHECK-LABEL: func.func @matmul
// CHECK:         %[[Y:.*]] = onnx.MatMul(%{{.*}}, %{{.*}}) : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
// CHECK:         %[[V:.*]] = onnx.MatMul(%{{.*}}, %{{.*}}) : (tensor<4xi64>, tensor<4xi64>) -> tensor<i64>
// CHECK:         return %[[Y]], %[[V]]
func.func @matmul(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>, %v: tensor<4xi64>) -> (tensor<?x3x5xf32>, tensor<i64>) {
  %0 = onnx.MatMul(%a, %b) : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  %1 = onnx.MatMul(%v, %v) : (tensor<4xi64>, tensor<4xi64>) -> tensor<i64>
  return %0, %1 : tensor<?x3x5xf32>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @conv
// CHECK:         onnx.Conv(%{{.*}}, %{{.*}}, %{{.*}}) {auto_pad = "SAME_UPPER", dilations = array<i64: 1, 2>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 1>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<?x6x5x9xf32>
// CHECK:         onnx.Conv(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>, none) -> tensor<?x6x7x7xf32>
func.func @conv(%x: tensor<?x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>, %w1: tensor<6x4x3x3xf32>) -> (tensor<?x6x5x9xf32>, tensor<?x6x7x7xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %b) {auto_pad = "SAME_UPPER", dilations = array<i64: 1, 2>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 1>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<?x6x5x9xf32>
  %1 = onnx.Conv(%x, %w1, %none) : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>, none) -> tensor<?x6x7x7xf32>
  return %0, %1 : tensor<?x6x5x9xf32>, tensor<?x6x7x7xf32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose
// CHECK:         onnx.ConvTranspose(%{{.*}}, %{{.*}}, %{{.*}}) {output_padding = array<i64: 1, 1>, output_shape = array<i64: 10, 8>, strides = array<i64: 3, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>, none) -> tensor<1x2x10x8xf32>
func.func @conv_transpose(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> tensor<1x2x10x8xf32> {
  %none = onnx.NoValue
  %0 = onnx.ConvTranspose(%x, %w, %none) {output_padding = array<i64: 1, 1>, output_shape = array<i64: 10, 8>, strides = array<i64: 3, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>, none) -> tensor<1x2x10x8xf32>
  return %0 : tensor<1x2x10x8xf32>
}

// -----

// CHECK-LABEL: func.func @pools
// CHECK:         %[[Y:.*]], %[[I:.*]] = onnx.MaxPool(%{{.*}}) {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK:         onnx.AveragePool(%{{.*}}) {count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK:         onnx.GlobalAveragePool(%{{.*}}) : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
func.func @pools(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) {
  %0, %1 = onnx.MaxPool(%x) {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %2 = onnx.AveragePool(%x) {count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %3 = onnx.GlobalAveragePool(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  return %0, %1, %2, %3 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>
}
