// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Each elementwise op of one input lowers to one linalg.generic over the
// tensor whose body computes the op's formula (checked op by op, with the
// attributes' values where the op has them).
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0) -> (d0)>

// abs: |x|
// CHECK-LABEL: func.func @abs(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.absf
// CHECK:           linalg.yield
func.func @abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Abs(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ceil: ceil(x)
// CHECK-LABEL: func.func @ceil(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.ceil
// CHECK:           linalg.yield
func.func @ceil(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Ceil(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// floor: floor(x)
// CHECK-LABEL: func.func @floor(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.floor
// CHECK:           linalg.yield
func.func @floor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Floor(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// cos: cos(x)
// CHECK-LABEL: func.func @cos(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.cos
// CHECK:           linalg.yield
func.func @cos(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Cos(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sin: sin(x)
// CHECK-LABEL: func.func @sin(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.sin
// CHECK:           linalg.yield
func.func @sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Sin(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// atan: atan(x)
// CHECK-LABEL: func.func @atan(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.atan
// CHECK:           linalg.yield
func.func @atan(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Atan(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// exp: exp(x)
// CHECK-LABEL: func.func @exp(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.exp
// CHECK:           linalg.yield
func.func @exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// log: log(x)
// CHECK-LABEL: func.func @log(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.log
// CHECK:           linalg.yield
func.func @log(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Log(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// neg: -x
// CHECK-LABEL: func.func @neg(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.negf
// CHECK:           linalg.yield
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// reciprocal: 1 / x
// CHECK-LABEL: func.func @reciprocal(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.divf
// CHECK:           linalg.yield
func.func @reciprocal(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Reciprocal(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// round: round half to even
// CHECK-LABEL: func.func @round(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.roundeven
// CHECK:           linalg.yield
func.func @round(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Round(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sign: -1, 0 or 1 (0 for 0)
// CHECK-LABEL: func.func @sign(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK:           linalg.yield
func.func @sign(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Sign(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sqrt: sqrt(x)
// CHECK-LABEL: func.func @sqrt(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.sqrt
// CHECK:           linalg.yield
func.func @sqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Sqrt(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// tanh: tanh(x)
// CHECK-LABEL: func.func @tanh(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.tanh
// CHECK:           linalg.yield
func.func @tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Tanh(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sigmoid: 1 / (1 + exp(-x))
// CHECK-LABEL: func.func @sigmoid(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.negf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:           arith.divf
// CHECK:           linalg.yield
func.func @sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Sigmoid(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// softplus: max(x, 0) + log1p(exp(-|x|)) (no overflow for large x)
// CHECK-LABEL: func.func @softplus(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           math.absf
// CHECK:           arith.negf
// CHECK:           math.exp
// CHECK:           arith.maximumf
// CHECK:           math.log1p
// CHECK:           arith.addf
// CHECK:           linalg.yield
func.func @softplus(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Softplus(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// erf: a rational approximation from arith ops on x clamped to a finite
// range (math.erf has no LLVM lowering)
// CHECK-LABEL: func.func @erf(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK-NOT:       math.
// CHECK:           arith.divf
// CHECK:           linalg.yield
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Erf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// elu: x < 0 ? alpha * (exp(x) - 1) : x, alpha = 1.5
// CHECK-LABEL: func.func @elu(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.cmpf olt
// CHECK:           math.exp
// CHECK:           arith.subf
// CHECK:           arith.constant 1.500000e+00
// CHECK:           arith.mulf
// CHECK:           arith.select
// CHECK:           linalg.yield
func.func @elu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Elu(%x) {alpha = 1.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), alpha = 2
// CHECK-LABEL: func.func @celu(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.constant 2.000000e+00
// CHECK:           arith.divf
// CHECK:           math.exp
// CHECK:           arith.subf
// CHECK:           arith.constant 2.000000e+00
// CHECK:           arith.mulf
// CHECK:           arith.minimumf
// CHECK:           arith.maximumf
// CHECK:           arith.addf
// CHECK:           linalg.yield
func.func @celu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Celu(%x) {alpha = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// selu: gamma * (x > 0 ? x : alpha * (exp(x) - 1)), ONNX's default alpha and gamma
// CHECK-LABEL: func.func @selu(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.cmpf ogt
// CHECK:           math.exp
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.select
// CHECK:           arith.mulf
// CHECK:           linalg.yield
func.func @selu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Selu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// leakyrelu: x < 0 ? alpha * x : x, alpha = 0.25
// CHECK-LABEL: func.func @leakyrelu(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.cmpf olt
// CHECK:           arith.constant 2.500000e-01
// CHECK:           arith.mulf
// CHECK:           arith.select
// CHECK:           linalg.yield
func.func @leakyrelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.LeakyRelu(%x) {alpha = 0.25 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// thresholdedrelu: x > alpha ? x : 0, alpha = 0.5
// CHECK-LABEL: func.func @thresholdedrelu(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.constant 5.000000e-01
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// CHECK:           linalg.yield
func.func @thresholdedrelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.ThresholdedRelu(%x) {alpha = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// hardsigmoid: max(0, min(1, alpha * x + beta)), alpha = 0.25, beta = 0.5
// CHECK-LABEL: func.func @hardsigmoid(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]
// CHECK:           arith.constant 2.500000e-01
// CHECK:           arith.mulf
// CHECK:           arith.constant 5.000000e-01
// CHECK:           arith.addf
// CHECK:           arith.minimumf
// CHECK:           arith.maximumf
// CHECK:           linalg.yield
func.func @hardsigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.HardSigmoid(%x) {alpha = 0.25 : f32, beta = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
