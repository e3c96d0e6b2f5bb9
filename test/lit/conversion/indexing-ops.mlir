// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// ConstantOfShape, Range, Trilu, GatherElements, TopK,
// NegativeLogLikelihoodLoss and Einsum. (OneHot and DepthToSpace have no
// lowering of their own: odt-decompose-composite-ops rewrites them first.)

// ConstantOfShape with a constant shape: a fill of the value.
// CHECK-LABEL: func.func @constant_of_shape(
// CHECK:         %[[V:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         linalg.fill ins(%[[V]] : f32) outs(%{{.*}} : tensor<2x3xf32>)
func.func @constant_of_shape() -> tensor<2x3xf32> {
  %shape = onnx.Constant {value = dense<[2, 3]> : tensor<2xi64>} : tensor<2xi64>
  %0 = onnx.ConstantOfShape(%shape) {value = dense<1.5> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Range: ceil((limit - start) / delta) elements, start + i * delta.
// CHECK-LABEL: func.func @range(
// CHECK:         arith.subf
// CHECK:         arith.divf
// CHECK:         math.ceil
// CHECK:         linalg.generic
// CHECK:           linalg.index 0
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @range(%start: tensor<f32>, %limit: tensor<f32>, %delta: tensor<f32>) -> tensor<?xf32> {
  %0 = onnx.Range(%start, %limit, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Trilu, lower (upper = 0, k = 0): x where column <= row, else 0.
// CHECK-LABEL: func.func @trilu(
// CHECK:         linalg.generic
// CHECK:           linalg.index 0
// CHECK:           linalg.index 1
// CHECK:           arith.cmpi sle
// CHECK:           arith.select
func.func @trilu(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %none = onnx.NoValue
  %0 = onnx.Trilu(%x, %none) {upper = 0 : i64} : (tensor<4x4xf32>, none) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// GatherElements on axis 1: each output reads data[row, index], a negative
// index counted from the end.
// CHECK-LABEL: func.func @gather_elements(
// CHECK:         linalg.generic
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<3x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = onnx.GatherElements(%x, %i) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// TopK (k = 3, largest, sorted) along the last axis: each element's rank
// among its row (larger first, a NaN the largest, ties by index), then
// each of the first k ranks picks its value and index.
// CHECK-LABEL: func.func @top_k(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.cmpf uno
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpf oeq
// CHECK:           arith.cmpi slt
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.cmpi eq
// CHECK:           arith.select
// CHECK:           arith.select
func.func @top_k(%x: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %k = onnx.Constant {value = dense<3> : tensor<1xi64>} : tensor<1xi64>
  %0:2 = onnx.TopK(%x, %k) : (tensor<2x8xf32>, tensor<1xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// NegativeLogLikelihoodLoss, mean, no weights: -x[n, target[n]] per sample,
// summed, divided by the count of weights.
// CHECK-LABEL: func.func @nll_loss(
// CHECK:         linalg.generic
// CHECK:           tensor.extract
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = []
// CHECK:           arith.divf
func.func @nll_loss(%x: tensor<4x5xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %none = onnx.NoValue
  %0 = onnx.NegativeLogLikelihoodLoss(%x, %t, %none) : (tensor<4x5xf32>, tensor<4xi64>, none) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Einsum "ij,jk->ik": one generic, j reduced.
// CHECK-DAG:     #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:     #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:     #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @einsum(
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @einsum(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = onnx.Einsum(%a, %b) {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
