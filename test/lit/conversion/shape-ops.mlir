// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Shape ops with constant shape inputs lower to tensor ops that move no data
// where they can (collapse, expand, extract and insert slices) and to one
// linalg op where they must; Gather, Where and the boolean ops to one
// generic each.

// Transpose: linalg.transpose with the permutation.
// CHECK-LABEL: func.func @transpose(
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = onnx.Transpose(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// Concat: each input inserted at its offset along the axis; no loop.
// CHECK-LABEL: func.func @concat(
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK:         %[[FIRST:.*]] = tensor.insert_slice %{{.*}} into %[[EMPTY]][0, 0] [2, 3] [1, 1]
// CHECK:         tensor.insert_slice %{{.*}} into %[[FIRST]][0, 3] [2, 5] [1, 1]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = onnx.Concat(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Reshape by a constant shape: a collapse and an expand, no copy.
// CHECK-LABEL: func.func @reshape(
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [6, 4]
// CHECK-NOT:     linalg.
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %shape = onnx.Constant {value = dense<[6, 4]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.Reshape(%x, %shape) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// Flatten at axis 1: one collapse.
// CHECK-LABEL: func.func @flatten(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK-NOT:     linalg.
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = onnx.Flatten(%x) {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// Unsqueeze: an expand.
// CHECK-LABEL: func.func @unsqueeze(
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [3, 1, 4]
// CHECK-NOT:     linalg.
func.func @unsqueeze(%x: tensor<3x4xf32>) -> tensor<3x1x4xf32> {
  %axes = onnx.Constant {value = dense<[1]> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.Unsqueeze(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>
  return %0 : tensor<3x1x4xf32>
}

// -----

// Squeeze: a collapse.
// CHECK-LABEL: func.func @squeeze(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<3x1x4xf32> into tensor<3x4xf32>
// CHECK-NOT:     linalg.
func.func @squeeze(%x: tensor<3x1x4xf32>) -> tensor<3x4xf32> {
  %axes = onnx.Constant {value = dense<[1]> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.Squeeze(%x, %axes) : (tensor<3x1x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Expand: the unit dim dropped, then broadcast by the indexing map.
// CHECK-DAG:     #[[$BCAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @expand(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x4xf32> into tensor<4xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$BCAST]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @expand(%x: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %shape = onnx.Constant {value = dense<[3, 4]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.Expand(%x, %shape) : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tile by [2, 3]: one generic over [2, 2, 3, 4] reading x[d1, d3], then the
// repeats collapsed into their dims.
// CHECK-DAG:     #[[$TILED:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @tile(
// CHECK:         linalg.generic {indexing_maps = [#[[$TILED]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<2x2x3x4xf32> into tensor<4x12xf32>
func.func @tile(%x: tensor<2x4xf32>) -> tensor<4x12xf32> {
  %repeats = onnx.Constant {value = dense<[2, 3]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.Tile(%x, %repeats) : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// Slice with constant starts, ends, axes and steps: one strided extract.
// CHECK-LABEL: func.func @slice(
// CHECK:         tensor.extract_slice %{{.*}}[1, 0] [3, 6] [2, 1] : tensor<8x6xf32> to tensor<3x6xf32>
// CHECK-NOT:     linalg.
func.func @slice(%x: tensor<8x6xf32>) -> tensor<3x6xf32> {
  %starts = onnx.Constant {value = dense<[1]> : tensor<1xi64>} : tensor<1xi64>
  %ends = onnx.Constant {value = dense<[7]> : tensor<1xi64>} : tensor<1xi64>
  %axes = onnx.Constant {value = dense<[0]> : tensor<1xi64>} : tensor<1xi64>
  %steps = onnx.Constant {value = dense<[2]> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.Slice(%x, %starts, %ends, %axes, %steps) : (tensor<8x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// Split by sizes [2, 4]: one extract per output.
// CHECK-LABEL: func.func @split(
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [2, 2] [1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 2] [2, 4] [1, 1]
func.func @split(%x: tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>) {
  %sizes = onnx.Constant {value = dense<[2, 4]> : tensor<2xi64>} : tensor<2xi64>
  %0:2 = onnx.Split(%x, %sizes) {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x4xf32>
}

// -----

// Gather on axis 0: each output element reads its row by the index, a
// negative index counted from the end.
// CHECK-LABEL: func.func @gather(
// CHECK:         linalg.generic
// CHECK:           linalg.index 0
// CHECK:           arith.index_cast
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<5x4xf32>
func.func @gather(%x: tensor<5x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = onnx.Gather(%x, %i) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Pad with constant pads (begin [1, 2], end [1, 2]) and the default zero.
// CHECK-LABEL: func.func @pad(
// CHECK:         tensor.pad %{{.*}} low[1, 2] high[1, 2]
// CHECK:           tensor.yield %{{.*}} : f32
func.func @pad(%x: tensor<2x3xf32>) -> tensor<4x7xf32> {
  %pads = onnx.Constant {value = dense<[1, 2, 1, 2]> : tensor<4xi64>} : tensor<4xi64>
  %none = onnx.NoValue
  %0 = onnx.Pad(%x, %pads, %none, %none) {mode = "constant"} : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// Where: one select per element.
// CHECK-LABEL: func.func @where(
// CHECK:         linalg.generic
// CHECK:           arith.select
func.func @where(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Where(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// And, Or and Not on booleans: andi, ori, and xori with true.
// CHECK-LABEL: func.func @logic(
// CHECK:         linalg.generic
// CHECK:           arith.andi
// CHECK:         linalg.generic
// CHECK:           arith.ori
// CHECK:         linalg.generic
// CHECK:           arith.xori
func.func @logic(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = onnx.And(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = onnx.Or(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = onnx.Not(%a) : (tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
