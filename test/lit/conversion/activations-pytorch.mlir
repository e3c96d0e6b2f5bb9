// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// The activations PyTorch exports lower to one elementwise linalg.generic
// each, with their formulas in the body.

// HardSwish: x * max(0, min(1, x / 6 + 1/2)).
// CHECK-LABEL: func.func @hard_swish
// CHECK:         linalg.generic
// CHECK:           %[[SIXTH:.*]] = arith.constant 0.16666{{[0-9]*}} : f32
// CHECK:           %[[SCALED:.*]] = arith.mulf %[[X:.*]], %[[SIXTH]]
// CHECK:           %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:           %[[GATE:.*]] = arith.addf %[[SCALED]], %[[HALF]]
// CHECK:           arith.minimumf %[[GATE]]
// CHECK:           arith.maximumf
// CHECK:           arith.mulf %[[X]]
func.func @hard_swish(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = onnx.HardSwish(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Mish: x * tanh(softplus(x)), softplus as max(x, 0) + log1p(exp(-|x|)).
// CHECK-LABEL: func.func @mish
// CHECK:         linalg.generic
// CHECK:           math.absf
// CHECK:           math.exp
// CHECK:           math.log1p
// CHECK:           math.tanh
// CHECK:           arith.mulf
func.func @mish(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Mish(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// PRelu: the slope (one per channel here) broadcast to X.
// CHECK-DAG:   #[[$X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[$SLOPE:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @prelu
// CHECK:         linalg.generic {indexing_maps = [#[[$X]], #[[$SLOPE]], #[[$X]]]
// CHECK:           arith.cmpf olt
// CHECK:           arith.mulf
// CHECK:           arith.select
func.func @prelu(%x: tensor<?x16x1xf32>, %s: tensor<16x1xf32>) -> tensor<?x16x1xf32> {
  %0 = onnx.PRelu(%x, %s) : (tensor<?x16x1xf32>, tensor<16x1xf32>) -> tensor<?x16x1xf32>
  return %0 : tensor<?x16x1xf32>
}

// -----

// Integer Mod (fmod = 0): the remainder takes the divisor's sign; x mod 0
// and INT_MIN mod -1 give 0 instead of a trap.
// CHECK-LABEL: func.func @mod_int
// CHECK:         linalg.generic
// CHECK:           arith.remsi
// CHECK:           arith.xori
// CHECK:           arith.addi
// CHECK:           arith.select
func.func @mod_int(%a: tensor<6xi64>, %b: tensor<6xi64>) -> tensor<6xi64> {
  %0 = onnx.Mod(%a, %b) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %0 : tensor<6xi64>
}

// -----

// GatherND reads each index tuple from indices inside the body, wraps and
// clamps it, then reads data.
// CHECK-LABEL: func.func @gather_nd
// CHECK:         linalg.generic
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<3x2xi64>
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<3x2xi64>
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x5x6xf32>
func.func @gather_nd(%d: tensor<4x5x6xf32>, %i: tensor<3x2xi64>) -> tensor<3x6xf32> {
  %0 = onnx.GatherND(%d, %i) : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}
