// RUN: odt-opt %s --split-input-file --odt-infer-shapes --verify-diagnostics | FileCheck %s

// Shape inference of the NN family: a symbolic batch flows through, spatial
// sizes follow ONNX's formulas (pads, strides, dilations, auto_pad,
// ceil_mode, output_shape), symbolic spatial dims keep their symbol where
// the window keeps sizes and get a fresh one otherwise, and bad shapes are
// node-located errors.

// MatMul: batch dims broadcast (a static 1 takes the other side's symbol),
// K binds to the weight's size, 1-D operands are promoted and dropped.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%{{.*}}: tensor<?x1x3x4xf32> {onnx.dims = ["N", 1, 3, 4]}, %{{.*}}: tensor<5x4x2xf32> {onnx.dims = [5, 4, 2]}, %{{.*}}: tensor<4xf32> {onnx.dims = [4]})
// CHECK-SAME:    -> (tensor<?x5x3x2xf32> {onnx.dims = ["N", 5, 3, 2]}, tensor<?x1x3xf32> {onnx.dims = ["N", 1, 3]}, tensor<5x2xf32> {onnx.dims = [5, 2]}, tensor<f32> {onnx.dims = []})
// CHECK:         onnx.MatMul({{.*}} : (tensor<?x1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<?x5x3x2xf32>
// CHECK:         onnx.MatMul({{.*}} : (tensor<?x1x3x4xf32>, tensor<4xf32>) -> tensor<?x1x3xf32>
// CHECK:         onnx.MatMul({{.*}} : (tensor<4xf32>, tensor<5x4x2xf32>) -> tensor<5x2xf32>
// CHECK:         onnx.MatMul({{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
func.func @matmul(%a: tensor<?x1x3x?xf32> {onnx.dims = ["N", 1, 3, "K"]}, %b: tensor<5x4x2xf32>, %v: tensor<4xf32>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = onnx.MatMul(%a, %b) : (tensor<?x1x3x?xf32>, tensor<5x4x2xf32>) -> tensor<*xf32>
  %1 = onnx.MatMul(%a, %v) : (tensor<?x1x3x?xf32>, tensor<4xf32>) -> tensor<*xf32>
  %2 = onnx.MatMul(%v, %b) : (tensor<4xf32>, tensor<5x4x2xf32>) -> tensor<*xf32>
  %3 = onnx.MatMul(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  // expected-error @unknown {{node 'mm' (onnx.MatMul): inner dimensions of A and B differ: 3 vs 4}}
  %0 = onnx.MatMul(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32> loc("mm")
  return %0 : tensor<*xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.MatMul' (onnx.MatMul): shapes cannot broadcast: 2 vs 3}}
  %0 = onnx.MatMul(%a, %b) : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Conv: [N, M, floor((in + pads - effK) / stride) + 1 ...]; the channel
// symbol binds to W's; SAME_* gives ceil(in / stride); a grouped conv needs
// C = group * W's dim 1.
// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%{{.*}}: tensor<?x4x7x5xf32> {onnx.dims = ["N", 4, 7, 5]}
// CHECK-SAME:    -> (tensor<?x6x4x2xf32> {onnx.dims = ["N", 6, 4, 2]}, tensor<?x6x4x3xf32> {onnx.dims = ["N", 6, 4, 3]}, tensor<?x6x3x3xf32> {onnx.dims = ["N", 6, 3, 3]}, tensor<?x4x7x5xf32> {onnx.dims = ["N", 4, 7, 5]})
// CHECK:         onnx.Conv({{.*}} : (tensor<?x4x7x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x4x2xf32>
// CHECK:         onnx.Conv({{.*}} : (tensor<?x4x7x5xf32>, tensor<6x2x3x3xf32>, none) -> tensor<?x6x4x3xf32>
// CHECK:         onnx.Conv({{.*}} : (tensor<?x4x7x5xf32>, tensor<6x4x3x3xf32>, none) -> tensor<?x6x3x3xf32>
// CHECK:         onnx.Conv({{.*}} : (tensor<?x4x7x5xf32>, tensor<4x1x3x3xf32>, none) -> tensor<?x4x7x5xf32>
func.func @conv(%x: tensor<?x?x7x5xf32> {onnx.dims = ["N", "C", 7, 5]}, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>,
                %wg: tensor<6x2x3x3xf32>, %wd: tensor<4x1x3x3xf32>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %b) {pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 2>} : (tensor<?x?x7x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<*xf32>
  %1 = onnx.Conv(%x, %wg, %none) {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x?x7x5xf32>, tensor<6x2x3x3xf32>, none) -> tensor<*xf32>
  %2 = onnx.Conv(%x, %w, %none) {dilations = array<i64: 2, 1>, strides = array<i64: 1, 1>} : (tensor<?x?x7x5xf32>, tensor<6x4x3x3xf32>, none) -> tensor<*xf32>
  %3 = onnx.Conv(%x, %wd, %none) {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x?x7x5xf32>, tensor<4x1x3x3xf32>, none) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Symbolic spatial dims: SAME_UPPER with stride 1 keeps the symbol, a
// stride 2 makes a fresh one named after the node.
// CHECK-LABEL: func.func @conv_symbolic_spatial
// CHECK-SAME:    -> (tensor<?x2x?x?xf32> {onnx.dims = ["N", 2, "H", "W"]}, tensor<?x2x?x?xf32> {onnx.dims = ["N", 2, "down_Y_dim2", "down_Y_dim3"]})
func.func @conv_symbolic_spatial(%x: tensor<?x3x?x?xf32> {onnx.dims = ["N", 3, "H", "W"]}, %w: tensor<2x3x3x3xf32>)
    -> (tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {auto_pad = "SAME_UPPER"} : (tensor<?x3x?x?xf32>, tensor<2x3x3x3xf32>, none) -> tensor<*xf32>
  %1 = onnx.Conv(%x, %w, %none) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x?x?xf32>, tensor<2x3x3x3xf32>, none) -> tensor<*xf32> loc("down")
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @conv_group_channels(%x: tensor<?x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'conv1' (onnx.Conv): X has 3 channels, not divisible by group 2}}
  %0 = onnx.Conv(%x, %w, %none) {group = 2 : i64} : (tensor<?x3x8x8xf32>, tensor<4x1x3x3xf32>, none) -> tensor<*xf32> loc("conv1")
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_channels(%x: tensor<?x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'conv1' (onnx.Conv): channels of X differ from W's dim 1 times group: 4 vs 6}}
  %0 = onnx.Conv(%x, %w, %none) {group = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32> loc("conv1")
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_output_channels_group(%x: tensor<?x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'conv1' (onnx.Conv): W has 3 output channels, not divisible by group 2}}
  %0 = onnx.Conv(%x, %w, %none) {group = 2 : i64} : (tensor<?x4x8x8xf32>, tensor<3x2x3x3xf32>, none) -> tensor<*xf32> loc("conv1")
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_kernel_too_large(%x: tensor<?x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @unknown {{node 'conv1' (onnx.Conv): kernel of spatial dim 0 (extent 5 with dilation) is larger than the padded input (4)}}
  %0 = onnx.Conv(%x, %w, %none) {dilations = array<i64: 2, 2>} : (tensor<?x1x4x4xf32>, tensor<1x1x3x3xf32>, none) -> tensor<*xf32> loc("conv1")
  return %0 : tensor<*xf32>
}

// -----

func.func @conv_bias(%x: tensor<?x1x4x4xf32>, %w: tensor<2x1x3x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{node 'onnx.Conv' (onnx.Conv): B must have one value per output channel: 3 vs 2}}
  %0 = onnx.Conv(%x, %w, %b) : (tensor<?x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ConvTranspose: stride * (in - 1) + output_padding + effK - pads, or
// output_shape; M = group * W's dim 1.
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME:    -> (tensor<?x2x10x8xf32> {onnx.dims = ["N", 2, 10, 8]}, tensor<?x2x7x3xf32> {onnx.dims = ["N", 2, 7, 3]}, tensor<?x4x6x6xf32> {onnx.dims = ["N", 4, 6, 6]}, tensor<?x2x10x8xf32> {onnx.dims = ["N", 2, 10, 8]})
func.func @conv_transpose(%x: tensor<?x2x3x3xf32> {onnx.dims = ["N", 2, 3, 3]}, %w: tensor<2x2x3x3xf32>, %wg: tensor<2x2x3x3xf32>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %none = onnx.NoValue
  %0 = onnx.ConvTranspose(%x, %w, %none) {output_padding = array<i64: 1, 1>, strides = array<i64: 3, 2>} : (tensor<?x2x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<*xf32>
  %1 = onnx.ConvTranspose(%x, %w, %none) {pads = array<i64: 1, 2, 1, 2>, strides = array<i64: 3, 2>} : (tensor<?x2x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<*xf32>
  %2 = onnx.ConvTranspose(%x, %wg, %none) {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x2x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<*xf32>
  %3 = onnx.ConvTranspose(%x, %w, %none) {output_shape = array<i64: 10, 8>, strides = array<i64: 3, 2>} : (tensor<?x2x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @conv_transpose_channels(%x: tensor<?x3x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<*xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{node 'onnx.ConvTranspose' (onnx.ConvTranspose): channels of X differ from W's dim 0: 3 vs 2}}
  %0 = onnx.ConvTranspose(%x, %w, %none) : (tensor<?x3x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Pools: ceil_mode (a last window starting in the end padding is dropped),
// SAME_LOWER, dilations; Indices are i64 of Y's shape; GlobalAveragePool
// keeps N and C.
// CHECK-LABEL: func.func @pools
// CHECK-SAME:    -> (tensor<?x3x2x2xf32> {onnx.dims = ["N", 3, 2, 2]}, tensor<?x3x2x2xi64> {onnx.dims = ["N", 3, 2, 2]}, tensor<?x3x2x2xf32> {onnx.dims = ["N", 3, 2, 2]}, tensor<?x3x2x2xf32> {onnx.dims = ["N", 3, 2, 2]}, tensor<?x3x1x1xf32> {onnx.dims = ["N", 3, 1, 1]}, tensor<?x3x2xf32> {onnx.dims = ["N", 3, 2]})
func.func @pools(%x: tensor<?x3x4x4xf32> {onnx.dims = ["N", 3, 4, 4]}, %x1: tensor<?x3x4xf32> {onnx.dims = ["N", 3, 4]})
    -> (tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0, %1 = onnx.MaxPool(%x) {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  %2 = onnx.AveragePool(%x) {auto_pad = "SAME_LOWER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x3x4x4xf32>) -> tensor<*xf32>
  %3, %4 = onnx.MaxPool(%x) {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<?x3x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  %5 = onnx.GlobalAveragePool(%x) : (tensor<?x3x4x4xf32>) -> tensor<*xf32>
  %6 = onnx.AveragePool(%x1) {ceil_mode = 1 : i64, kernel_shape = array<i64: 2>, pads = array<i64: 0, 1>, strides = array<i64: 2>} : (tensor<?x3x4xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3, %5, %6 : tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

func.func @pool_too_large(%x: tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @unknown {{node 'pool1' (onnx.MaxPool): kernel of spatial dim 1 (extent 5 with dilation) is larger than the padded input (4)}}
  %0, %1 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 5>} : (tensor<1x1x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>) loc("pool1")
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

// Pads computed the way TorchScript exports a reflect-padded Conv: per-axis
// [begin, end] rows of a constant, transposed into [begins, ends],
// flattened and cast. The values follow the Transpose (permuted), the
// Reshape and the Cast, so the Pad's result is static: H 16 + 1 + 2,
// W 16 + 3 + 4 (an unpermuted flattening would pad N and C instead).
// CHECK-LABEL: func.func @pads_through_transpose
// CHECK-SAME:    -> (tensor<?x3x19x23xf32> {onnx.dims = ["N", 3, 19, 23]})
func.func @pads_through_transpose(%x: tensor<?x3x16x16xf32> {onnx.dims = ["N", 3, 16, 16]}) -> tensor<*xf32> {
  %none = onnx.NoValue
  %rows = onnx.Constant {value = dense<[[0, 0], [0, 0], [1, 2], [3, 4]]> : tensor<4x2xi64>} : tensor<4x2xi64>
  %flat = onnx.Constant {value = dense<[-1]> : tensor<1xi64>} : tensor<1xi64>
  %t = onnx.Transpose(%rows) {perm = array<i64: 1, 0>} : (tensor<4x2xi64>) -> tensor<*xi64>
  %r = onnx.Reshape(%t, %flat) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %c = onnx.Cast(%r) {to = 7 : i64} : (tensor<*xi64>) -> tensor<*xi64>
  %y = onnx.Pad(%x, %c, %none, %none) {mode = "reflect"} : (tensor<?x3x16x16xf32>, tensor<*xi64>, none, none) -> tensor<*xf32>
  return %y : tensor<*xf32>
}
