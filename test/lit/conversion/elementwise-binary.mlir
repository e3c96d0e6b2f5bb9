// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Elementwise ops of two or three inputs, comparisons, Clip and Cast: one
// linalg.generic, the second input broadcast along the leading dim by its
// indexing map (no broadcast copy), the formula in the body.
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1) -> (d1)>

// add: a + b
// CHECK-LABEL: func.func @add(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.addf
// CHECK:           linalg.yield
func.func @add(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Add(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// sub: a - b
// CHECK-LABEL: func.func @sub(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.subf
// CHECK:           linalg.yield
func.func @sub(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Sub(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// mul: a * b
// CHECK-LABEL: func.func @mul(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.mulf
// CHECK:           linalg.yield
func.func @mul(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Mul(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// div: a / b
// CHECK-LABEL: func.func @div(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.divf
// CHECK:           linalg.yield
func.func @div(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Div(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// pow: powf(a, b)
// CHECK-LABEL: func.func @pow(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           math.powf
// CHECK:           linalg.yield
func.func @pow(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Pow(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// mod: fmod = 1: C fmod (the sign of a)
// CHECK-LABEL: func.func @mod(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.remf
// CHECK:           linalg.yield
func.func @mod(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Mod(%a, %b) {fmod = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// max: maximumf (a NaN wins)
// CHECK-LABEL: func.func @max(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.maximumf
// CHECK:           linalg.yield
func.func @max(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Max(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// min: minimumf (a NaN wins)
// CHECK-LABEL: func.func @min(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.minimumf
// CHECK:           linalg.yield
func.func @min(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Min(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// mean: (a + b) / 2
// CHECK-LABEL: func.func @mean(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.addf
// CHECK:           arith.constant 2.000000e+00
// CHECK:           arith.divf
// CHECK:           linalg.yield
func.func @mean(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Mean(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// sum: a + b
// CHECK-LABEL: func.func @sum(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.addf
// CHECK:           linalg.yield
func.func @sum(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Sum(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// equal: ordered ==
// CHECK-LABEL: func.func @equal(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.cmpf oeq
// CHECK:           linalg.yield
func.func @equal(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xi1> {
  %0 = onnx.Equal(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// greater: ordered >
// CHECK-LABEL: func.func @greater(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.cmpf ogt
// CHECK:           linalg.yield
func.func @greater(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xi1> {
  %0 = onnx.Greater(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// less: ordered <
// CHECK-LABEL: func.func @less(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$B]], #[[$ID]]]
// CHECK:           arith.cmpf olt
// CHECK:           linalg.yield
func.func @less(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xi1> {
  %0 = onnx.Less(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// isnan: unordered with itself
// CHECK-LABEL: func.func @isnan(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.cmpf uno
// CHECK:           linalg.yield
func.func @isnan(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xi1> {
  %0 = onnx.IsNaN(%a) : (tensor<2x4xf32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// isinf: x == -inf or x == +inf (both detected by default)
// CHECK-LABEL: func.func @isinf(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.constant 0xFF800000
// CHECK:           arith.cmpf oeq
// CHECK:           arith.ori
// CHECK:           arith.constant 0x7F800000
// CHECK:           arith.cmpf oeq
// CHECK:           arith.ori
// CHECK:           linalg.yield
func.func @isinf(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xi1> {
  %0 = onnx.IsInf(%a) : (tensor<2x4xf32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// clip: min(max(x, lo), hi), lo and hi read once outside the loop
// CHECK-LABEL: func.func @clip(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK:           linalg.yield
func.func @clip(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xf32> {
  %0 = onnx.Clip(%a, %lo, %hi) : (tensor<2x4xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// cast: to = 6 (int32): fptosi, truncating toward zero
// CHECK-LABEL: func.func @cast(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.fptosi
// CHECK:           linalg.yield
func.func @cast(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x4xi32> {
  %0 = onnx.Cast(%a) {to = 6 : i64} : (tensor<2x4xf32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}
