// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-decompose-composite-ops, odt-infer-shapes))' | FileCheck %s

// Composite ai.onnx ops become the ops they are made of, typed again by
// odt-infer-shapes.

// InstanceNormalization: LayerNormalization over the spatial dims (scale of
// ones, no bias), then the per-channel scale and bias as [C, 1, 1].
// CHECK-LABEL: func.func @instance_norm
// CHECK:         %[[SHAPE:.*]] = onnx.Shape(%[[X:.*]]) {{.*}} -> tensor<4xi64>
// CHECK:         %[[DIMS:.*]] = onnx.Slice(%[[SHAPE]]
// CHECK:         %[[ONES:.*]] = onnx.ConstantOfShape(%[[DIMS]]) {value = dense<1.000000e+00> : tensor<1xf32>}
// CHECK:         %[[Y:.*]], %{{.*}}, %{{.*}} = onnx.LayerNormalization(%[[X]], %[[ONES]], %{{.*}}) {axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK:         onnx.Unsqueeze(%{{.*}}, %{{.*}}) : (tensor<8xf32>, tensor<2xi64>) -> tensor<8x1x1xf32>
// CHECK:         onnx.Mul(%[[Y]], %{{.*}}) : (tensor<?x8x5x5xf32>, tensor<8x1x1xf32>) -> tensor<?x8x5x5xf32>
// CHECK:         onnx.Add
// CHECK-NOT:     onnx.InstanceNormalization
func.func @instance_norm(%x: tensor<?x8x5x5xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8x5x5xf32> {
  %0 = onnx.InstanceNormalization(%x, %s, %b) {epsilon = 1.0e-3 : f32} : (tensor<?x8x5x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x5x5xf32>
  return %0 : tensor<?x8x5x5xf32>
}

// -----

// GroupNormalization (opset 18: one scale per group): [N, G, -1] normalized
// over its last dim, reshaped back; the per-group scale repeated over the
// group's channels.
// CHECK-LABEL: func.func @group_norm_per_group
// CHECK:         onnx.Reshape(%{{.*}}, %{{.*}}) {{.*}} -> tensor<?x2x50xf32>
// CHECK:         onnx.LayerNormalization{{.*}}axis = 2
// CHECK:         onnx.Reshape{{.*}} -> tensor<?x4x5x5xf32>
// CHECK:         onnx.Expand{{.*}} -> tensor<2x2xf32>
// CHECK:         onnx.Reshape{{.*}} -> tensor<4xf32>
// CHECK-NOT:     onnx.GroupNormalization
func.func @group_norm_per_group(%x: tensor<?x4x5x5xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<?x4x5x5xf32> {
  %0 = onnx.GroupNormalization(%x, %s, %b) {num_groups = 2 : i64} : (tensor<?x4x5x5xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x4x5x5xf32>
  return %0 : tensor<?x4x5x5xf32>
}

// -----

// Resize: one MatMul per resized dim with a constant interpolation matrix;
// the last dim as X A^T [in, out], the one before as A [out, in] X.
// Nearest, asymmetric, floor (PyTorch's upsample): each row picks one input.
// CHECK-LABEL: func.func @resize_nearest
// CHECK:         %[[AT:.*]] = onnx.Constant {value = dense<{{\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x4xf32>}
// CHECK:         %[[W:.*]] = onnx.MatMul(%{{.*}}, %[[AT]]) : (tensor<?x3x2x2xf32>, tensor<2x4xf32>) -> tensor<?x3x2x4xf32>
// CHECK:         %[[A:.*]] = onnx.Constant {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<4x2xf32>}
// CHECK:         onnx.MatMul(%[[A]], %[[W]]) : (tensor<4x2xf32>, tensor<?x3x2x4xf32>) -> tensor<?x3x4x4xf32>
// CHECK-NOT:     onnx.Resize
func.func @resize_nearest(%x: tensor<?x3x2x2xf32>) -> tensor<?x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %scales = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : tensor<4xf32>
  %0 = onnx.Resize(%x, %none, %scales, %none) {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"} : (tensor<?x3x2x2xf32>, none, tensor<4xf32>, none) -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}

// -----

// Linear with half_pixel (PyTorch's bilinear, align_corners=False), 2 -> 4:
// output 0 sits at input -0.25 (clamped to 0), output 1 at 0.25.
// CHECK-LABEL: func.func @resize_linear
// CHECK:         onnx.Constant {value = dense<{{\[\[}}1.000000e+00, 7.500000e-01, 2.500000e-01, 0.000000e+00], [0.000000e+00, 2.500000e-01, 7.500000e-01, 1.000000e+00]]> : tensor<2x4xf32>}
func.func @resize_linear(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %scales = onnx.Constant {value = dense<[1.0, 1.0, 1.0, 2.0]> : tensor<4xf32>} : tensor<4xf32>
  %0 = onnx.Resize(%x, %none, %scales, %none) {mode = "linear"} : (tensor<1x1x1x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// -----

// OneHot: Equal of the (wrapped) indices with a Range along the new axis.
// CHECK-LABEL: func.func @one_hot
// CHECK:         onnx.Where{{.*}} -> tensor<?xi64>
// CHECK:         onnx.Unsqueeze{{.*}} -> tensor<?x1xi64>
// CHECK:         onnx.Equal{{.*}} -> tensor<?x5xi1>
// CHECK:         onnx.Where{{.*}} -> tensor<?x5xf32>
// CHECK-NOT:     onnx.OneHot
func.func @one_hot(%i: tensor<?xi64>) -> tensor<?x5xf32> {
  %depth = onnx.Constant {value = dense<5> : tensor<i64>} : tensor<i64>
  %values = onnx.Constant {value = dense<[0.0, 1.0]> : tensor<2xf32>} : tensor<2xf32>
  %0 = onnx.OneHot(%i, %depth, %values) : (tensor<?xi64>, tensor<i64>, tensor<2xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// DepthToSpace (DCR): [N, b, b, C/b^2, H, W], transposed, reshaped.
// CHECK-LABEL: func.func @depth_to_space
// CHECK:         onnx.Reshape{{.*}} -> tensor<?x2x2x2x3x3xf32>
// CHECK:         onnx.Transpose{{.*}}perm = array<i64: 0, 3, 4, 1, 5, 2>
// CHECK:         onnx.Reshape{{.*}} -> tensor<?x2x6x6xf32>
func.func @depth_to_space(%x: tensor<?x8x3x3xf32>) -> tensor<?x2x6x6xf32> {
  %0 = onnx.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<?x8x3x3xf32>) -> tensor<?x2x6x6xf32>
  return %0 : tensor<?x2x6x6xf32>
}

// -----

// SpaceToDepth: [N, C, H/b, b, W/b, b], the two b dims moved after N,
// reshaped to [N, C*b*b, H/b, W/b].
// CHECK-LABEL: func.func @space_to_depth
// CHECK:         onnx.Reshape{{.*}} -> tensor<?x2x3x2x3x2xf32>
// CHECK:         onnx.Transpose{{.*}}perm = array<i64: 0, 3, 5, 1, 2, 4>
// CHECK:         onnx.Reshape{{.*}} -> tensor<?x8x3x3xf32>
func.func @space_to_depth(%x: tensor<?x2x6x6xf32>) -> tensor<?x8x3x3xf32> {
  %0 = onnx.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<?x2x6x6xf32>) -> tensor<?x8x3x3xf32>
  return %0 : tensor<?x8x3x3xf32>
}

// -----

// A batch-first GRU (layout 1) becomes a layout-0 GRU between transposes.
// CHECK-LABEL: func.func @gru_batch_first
// CHECK:         %[[X:.*]] = onnx.Transpose(%{{.*}}) {perm = array<i64: 1, 0, 2>} : (tensor<?x7x4xf32>) -> tensor<7x?x4xf32>
// CHECK:         %[[Y:.*]], %[[YH:.*]] = onnx.GRU(%[[X]], {{.*}} {hidden_size = 5 : i64} : {{.*}} -> (tensor<7x1x?x5xf32>, tensor<1x?x5xf32>)
// CHECK:         onnx.Transpose(%[[Y]]) {perm = array<i64: 2, 0, 1, 3>} : (tensor<7x1x?x5xf32>) -> tensor<?x7x1x5xf32>
// CHECK:         onnx.Transpose(%[[YH]]) {perm = array<i64: 1, 0, 2>} : (tensor<1x?x5xf32>) -> tensor<?x1x5xf32>
func.func @gru_batch_first(%x: tensor<?x7x4xf32>, %w: tensor<1x15x4xf32>, %r: tensor<1x15x5xf32>) -> (tensor<?x7x1x5xf32>, tensor<?x1x5xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = onnx.GRU(%x, %w, %r, %none, %none, %none) {hidden_size = 5 : i64, layout = 1 : i64} : (tensor<?x7x4xf32>, tensor<1x15x4xf32>, tensor<1x15x5xf32>, none, none, none) -> (tensor<?x7x1x5xf32>, tensor<?x1x5xf32>)
  return %y, %yh : tensor<?x7x1x5xf32>, tensor<?x1x5xf32>
}
