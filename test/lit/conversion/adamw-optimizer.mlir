// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.ms.AdamWOptimizer: the bias corrections are computed once per call
// (powers in f64, truncated to f32, like ORT's kernel), then one elementwise
// linalg.generic per parameter reads w, g, m, v and yields the new w, m, v.
// The updated flag is the constant true.
//   mode 0 (PyTorch): w -= w * lr * wd; m = a m + (1 - a) g;
//                     v = b v + (1 - b) g g; w -= lr m / (ca (sqrt(v / cb) + eps))
//   mode 1 (HF):      m, v as above; w -= lr * sqrt(cb) / ca * m / (sqrt(v) + eps);
//                     w -= lr * wd * w

// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mode0
// CHECK-SAME:    (%[[LR:[^:]*]]: tensor<1xf32>, %[[STEP:[^:]*]]: tensor<1xi64>, %[[W:[^:]*]]: tensor<4x3xf32>, %[[G:[^:]*]]: tensor<4x3xf32>, %[[M:[^:]*]]: tensor<4x3xf32>, %[[V:[^:]*]]: tensor<4x3xf32>)
// CHECK:         %[[LRS:.*]] = tensor.extract %[[LR]][%{{.*}}] : tensor<1xf32>
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[STEPI:.*]] = tensor.extract %[[STEP]][%{{.*}}] : tensor<1xi64>
// CHECK:         %[[STEPF:.*]] = arith.sitofp %[[STEPI]] : i64 to f64
// CHECK:         %[[ALPHA:.*]] = arith.constant 0.89999997615814208 : f64
// CHECK:         %[[PA:.*]] = math.powf %[[ALPHA]], %[[STEPF]] : f64
// CHECK:         %[[PA32:.*]] = arith.truncf %[[PA]] : f64 to f32
// CHECK:         %[[CA:.*]] = arith.subf %[[ONE]], %[[PA32]] : f32
// CHECK:         %[[BETA:.*]] = arith.constant 0.99900001287460327 : f64
// CHECK:         %[[PB:.*]] = math.powf %[[BETA]], %[[STEPF]] : f64
// CHECK:         %[[PB32:.*]] = arith.truncf %[[PB]] : f64 to f32
// CHECK:         %[[CB:.*]] = arith.subf %[[ONE]], %[[PB32]] : f32
// CHECK:         %[[NEW:.*]]:3 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]], #[[$ID]], #[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[W]], %[[G]], %[[M]], %[[V]] : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-SAME:        outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[WI:.*]]: f32, %[[GI:.*]]: f32, %[[MI:.*]]: f32, %[[VI:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// decoupled weight decay first
// CHECK-NEXT:      %[[WD:.*]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      %[[T0:.*]] = arith.mulf %[[WI]], %[[LRS]] : f32
// CHECK-NEXT:      %[[T1:.*]] = arith.mulf %[[T0]], %[[WD]] : f32
// CHECK-NEXT:      %[[W1:.*]] = arith.subf %[[WI]], %[[T1]] : f32
// moments
// CHECK:           %[[M1:.*]] = arith.addf
// CHECK:           %[[V1:.*]] = arith.addf
// CHECK-NEXT:      %[[VC:.*]] = arith.divf %[[V1]], %[[CB]] : f32
// CHECK-NEXT:      %[[SQ:.*]] = math.sqrt %[[VC]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 9.99999993E-9 : f32
// CHECK-NEXT:      %[[DEN:.*]] = arith.addf %[[SQ]], %[[EPS]] : f32
// CHECK-NEXT:      %[[NUM:.*]] = arith.mulf %[[LRS]], %[[M1]] : f32
// CHECK-NEXT:      %[[DEN2:.*]] = arith.mulf %[[CA]], %[[DEN]] : f32
// CHECK-NEXT:      %[[STEPW:.*]] = arith.divf %[[NUM]], %[[DEN2]] : f32
// CHECK-NEXT:      %[[W2:.*]] = arith.subf %[[W1]], %[[STEPW]] : f32
// CHECK-NEXT:      linalg.yield %[[W2]], %[[M1]], %[[V1]] : f32, f32, f32
// CHECK:         %[[TRUE:.*]] = arith.constant dense<true> : tensor<1xi1>
// CHECK:         return %[[TRUE]], %[[NEW]]#0, %[[NEW]]#1, %[[NEW]]#2
func.func @mode0(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4x3xf32>, %g: tensor<4x3xf32>,
                 %m: tensor<4x3xf32>, %v: tensor<4x3xf32>)
    -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %g, %m, %v) {adam_mode = 0 : i64}
      : (tensor<1xf32>, tensor<1xi64>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<1xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Mode 1 (ORT's default, as in the MLP artifacts): the corrected learning
// rate lr * sqrt(cb) / ca is computed once; weight decay comes last, on the
// updated weight. The moment updates use the f32 constants alpha, 1 - alpha,
// beta and 1 - beta.
// CHECK-LABEL: func.func @mode1
// CHECK:         %[[LRS:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<1xf32>
// CHECK:         %[[CA:.*]] = arith.subf
// CHECK:         %[[CB:.*]] = arith.subf
// CHECK:         %[[SQCB:.*]] = math.sqrt %[[CB]] : f32
// CHECK:         %[[RATIO:.*]] = arith.divf %[[SQCB]], %[[CA]] : f32
// CHECK:         %[[LRC:.*]] = arith.mulf %[[LRS]], %[[RATIO]] : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[WI:.*]]: f32, %[[GI:.*]]: f32, %[[MI:.*]]: f32, %[[VI:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[WD:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:      %[[A:.*]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      %[[AM:.*]] = arith.mulf %[[A]], %[[MI]] : f32
// CHECK-NEXT:      %[[A1:.*]] = arith.constant 0.100000024 : f32
// CHECK-NEXT:      %[[AG:.*]] = arith.mulf %[[A1]], %[[GI]] : f32
// CHECK-NEXT:      %[[M1:.*]] = arith.addf %[[AM]], %[[AG]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.constant 9.990000e-01 : f32
// CHECK-NEXT:      %[[BV:.*]] = arith.mulf %[[B]], %[[VI]] : f32
// CHECK-NEXT:      %[[B1:.*]] = arith.constant 9.99987125E-4 : f32
// CHECK-NEXT:      %[[BG:.*]] = arith.mulf %[[B1]], %[[GI]] : f32
// CHECK-NEXT:      %[[BGG:.*]] = arith.mulf %[[BG]], %[[GI]] : f32
// CHECK-NEXT:      %[[V1:.*]] = arith.addf %[[BV]], %[[BGG]] : f32
// CHECK-NEXT:      %[[SQ:.*]] = math.sqrt %[[V1]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK-NEXT:      %[[DEN:.*]] = arith.addf %[[SQ]], %[[EPS]] : f32
// CHECK-NEXT:      %[[NUM:.*]] = arith.mulf %[[LRC]], %[[M1]] : f32
// CHECK-NEXT:      %[[UPD:.*]] = arith.divf %[[NUM]], %[[DEN]] : f32
// CHECK-NEXT:      %[[W1:.*]] = arith.subf %[[WI]], %[[UPD]] : f32
// CHECK-NEXT:      %[[LRWD:.*]] = arith.mulf %[[LRS]], %[[WD]] : f32
// CHECK-NEXT:      %[[DEC:.*]] = arith.mulf %[[LRWD]], %[[W1]] : f32
// CHECK-NEXT:      %[[W2:.*]] = arith.subf %[[W1]], %[[DEC]] : f32
// CHECK-NEXT:      linalg.yield %[[W2]], %[[M1]], %[[V1]] : f32, f32, f32
func.func @mode1(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4x3xf32>, %g: tensor<4x3xf32>,
                 %m: tensor<4x3xf32>, %v: tensor<4x3xf32>)
    -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %g, %m, %v) {adam_mode = 1 : i64, epsilon = 1.0e-6 : f32, weight_decay = 0.1 : f32}
      : (tensor<1xf32>, tensor<1xi64>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<1xi1>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Without bias correction the step is not read and lr is used as is.
// CHECK-LABEL: func.func @no_correct_bias
// CHECK-SAME:    %[[STEP:[^:]*]]: tensor<1xi64>
// CHECK-NOT:     %[[STEP]]
// CHECK-NOT:     math.powf
// CHECK:         linalg.generic
func.func @no_correct_bias(%lr: tensor<1xf32>, %step: tensor<1xi64>, %w: tensor<4xf32>, %g: tensor<4xf32>,
                           %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %g, %m, %v) {adam_mode = 1 : i64, correct_bias = 0 : i64}
      : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<1xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#1 : tensor<4xf32>
}

// -----

// Two parameters: one generic each, over its own shape; the results come
// back grouped as weights, first moments, second moments.
// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_parameters
// CHECK:         %[[P0:.*]]:3 = linalg.generic {indexing_maps = [#[[$ID2]], {{.*}}} ins({{.*}} : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:         %[[P1:.*]]:3 = linalg.generic {indexing_maps = [#[[$ID1]], {{.*}}} ins({{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         return %{{.*}}, %[[P0]]#0, %[[P1]]#0, %[[P0]]#1, %[[P1]]#1, %[[P0]]#2, %[[P1]]#2 :
func.func @two_parameters(%lr: tensor<1xf32>, %step: tensor<1xi64>,
                          %w0: tensor<4x3xf32>, %w1: tensor<4xf32>, %g0: tensor<4x3xf32>, %g1: tensor<4xf32>,
                          %m0: tensor<4x3xf32>, %m1: tensor<4xf32>, %v0: tensor<4x3xf32>, %v1: tensor<4xf32>)
    -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>) {
  %0:7 = onnx.ms.AdamWOptimizer(%lr, %step, %w0, %w1, %g0, %g1, %m0, %m1, %v0, %v1)
      : (tensor<1xf32>, tensor<1xi64>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>,
         tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
      -> (tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6
      : tensor<1xi1>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>
}
