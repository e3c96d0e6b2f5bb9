// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.ms.SoftmaxCrossEntropyLossGrad:
//   d[s, c] = (exp(log_prob[s, c]) - (c == label[s])) * w[s] * g[s]
// with g = dY / sum(w) (mean), dY (sum) or dY[s] (none), folded into one
// per-sample scale before a single elementwise pass over [N, C, ...].

// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$SAMPLE:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[$S1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @mean
// CHECK-SAME:    (%[[DY:.*]]: tensor<f32>, %[[LP:.*]]: tensor<?x10xf32>, %[[L:.*]]: tensor<?xi64>)
// CHECK:         %[[W:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$S1]]], iterator_types = ["parallel"]} ins(%[[L]] : tensor<?xi64>)
// CHECK:         %[[G:.*]] = tensor.extract %[[DY]][] : tensor<f32>
// CHECK:         %[[WSUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[W]] : tensor<?xf32>)
// CHECK:         %[[TOTAL:.*]] = tensor.extract %[[WSUM]][] : tensor<f32>
// CHECK:         %[[GN:.*]] = arith.divf %[[G]], %[[TOTAL]] : f32
// CHECK:         %[[SCALE:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$S1]]], iterator_types = ["parallel"]} ins(%[[W]] : tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[WI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SC:.*]] = arith.mulf %[[WI]], %[[GN]] : f32
// CHECK-NEXT:      linalg.yield %[[SC]] : f32
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[D:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SAMPLE]], #[[$SAMPLE]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[LP]], %[[L]], %[[SCALE]] : tensor<?x10xf32>, tensor<?xi64>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[LPI:.*]]: f32, %[[LABEL:.*]]: i64, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[P:.*]] = math.exp %[[LPI]] : f32
// CHECK-NEXT:      arith.index_cast %[[LABEL]] : i64 to index
// CHECK:           %[[CLS:.*]] = arith.minsi
// CHECK-NEXT:      %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[IS:.*]] = arith.cmpi eq, %[[C]], %[[CLS]] : index
// CHECK-NEXT:      %[[T:.*]] = arith.select %[[IS]], %[[ONE]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[DIFF:.*]] = arith.subf %[[P]], %[[T]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[DIFF]], %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK:         return %[[D]] : tensor<?x10xf32>
func.func @mean(%dy: tensor<f32>, %lp: tensor<?x10xf32>, %l: tensor<?xi64>) -> tensor<?x10xf32> {
  %none = onnx.NoValue
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %none)
      : (tensor<f32>, tensor<?x10xf32>, tensor<?xi64>, none, none) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// sum: the scale is w * dY, no division.
// CHECK-LABEL: func.func @sum
// CHECK-SAME:    (%[[DY:.*]]: tensor<f32>,
// CHECK:         %[[G:.*]] = tensor.extract %[[DY]][] : tensor<f32>
// CHECK-NOT:     arith.divf
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[WI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf %[[WI]], %[[G]] : f32
func.func @sum(%dy: tensor<f32>, %lp: tensor<?x10xf32>, %l: tensor<?xi32>) -> tensor<?x10xf32> {
  %none = onnx.NoValue
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %none, %none) {reduction = "sum"}
      : (tensor<f32>, tensor<?x10xf32>, tensor<?xi32>, none, none) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// none with weights and ignore_index: dY is per sample and multiplies w
// elementwise; w is weights[label], 0 for ignored labels.
// CHECK-DAG:   #[[$S1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @none_weights_ignore_index
// CHECK-SAME:    (%[[DY:.*]]: tensor<?xf32>, %[[LP:.*]]: tensor<?x10xf32>, %[[L:.*]]: tensor<?xi64>, %[[WEIGHTS:.*]]: tensor<10xf32>)
// CHECK:         %[[W:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<?xi64>)
// CHECK:           tensor.extract %[[WEIGHTS]]
// CHECK:           %[[IGN:.*]] = arith.constant 3 : i64
// CHECK:           arith.cmpi eq, %{{.*}}, %[[IGN]] : i64
// CHECK:         %[[SCALE:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$S1]], #[[$S1]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[W]], %[[DY]] : tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[WI:.*]]: f32, %[[GI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf %[[WI]], %[[GI]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[LP]], %[[L]], %[[SCALE]] :
func.func @none_weights_ignore_index(%dy: tensor<?xf32>, %lp: tensor<?x10xf32>, %l: tensor<?xi64>, %w: tensor<10xf32>) -> tensor<?x10xf32> {
  %none = onnx.NoValue
  %0 = onnx.ms.SoftmaxCrossEntropyLossGrad(%dy, %lp, %l, %w, %none) {reduction = "none", ignore_index = 3 : i64}
      : (tensor<?xf32>, tensor<?x10xf32>, tensor<?xi64>, tensor<10xf32>, none) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}
