// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.SoftmaxCrossEntropyLoss: a numerically stable log-softmax (max over
// classes, sum of exp(x - max), lse = max + log(sum), log_prob = x - lse),
// per-sample weights w (weights[label] or 1; 0 for ignore_index), per-sample
// losses -log_prob[label] * w, then the reduction: none keeps them, sum adds
// them, mean divides that sum by the sum of w.

// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$SAMPLE:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[$S1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[$ALL1:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG:   #[[$SCALAR:.*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @mean
// CHECK-SAME:    (%[[X:.*]]: tensor<?x10xf32>, %[[L:.*]]: tensor<?xi32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x10xf32>
// CHECK:         %[[C:.*]] = arith.constant 10 : index
// max over classes, from -inf
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<?xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SAMPLE]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x10xf32>) outs(%[[MAXINIT]] : tensor<?xf32>)
// CHECK:           arith.maximumf
// sum of exp(x - max)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SAMPLE]], #[[$SAMPLE]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[MAX]] : tensor<?x10xf32>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.*]]: f32, %[[MI:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[SH:.*]] = arith.subf %[[XI]], %[[MI]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[SH]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// lse = max + log(sum)
// CHECK:         %[[LSE:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$S1]], #[[$S1]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[MAX]], %[[SUM]] : tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[M2:.*]]: f32, %[[S2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[LOG:.*]] = math.log %[[S2]] : f32
// CHECK-NEXT:      arith.addf %[[M2]], %[[LOG]] : f32
// log_prob = x - lse
// CHECK:         %[[LP:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SAMPLE]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[LSE]] : tensor<?x10xf32>, tensor<?xf32>)
// CHECK:           arith.subf
// w = 1 for every sample (no weights, no ignore_index)
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[W:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$S1]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[L]] : tensor<?xi32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: i32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[ONE]] : f32
// per-sample loss: -log_prob[n, clamp(label)] * w
// CHECK:         %[[LOSSES:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$S1]], #[[$S1]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[L]], %[[W]] : tensor<?xi32>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[LABEL:.*]]: i32, %[[WI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[LABEL]] : i32 to index
// CHECK:           %[[LAST:.*]] = arith.subi %[[C]], %{{.*}} : index
// CHECK-NEXT:      %[[LO:.*]] = arith.maxsi %[[IDX]], %{{.*}} : index
// CHECK-NEXT:      %[[CLS:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK-NEXT:      %[[SMP:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[PICK:.*]] = tensor.extract %[[LP]][%[[SMP]], %[[CLS]]] : tensor<?x10xf32>
// CHECK-NEXT:      %[[WL:.*]] = arith.mulf %[[PICK]], %[[WI]] : f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[WL]] : f32
// CHECK-NEXT:      linalg.yield %[[NEG]] : f32
// mean = sum(losses) / sum(w)
// CHECK:         %[[TOTAL:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$ALL1]]], iterator_types = ["reduction"]}
// CHECK-SAME:        ins(%[[LOSSES]] : tensor<?xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[WSUM:.*]] = linalg.generic {indexing_maps = [#[[$S1]], #[[$ALL1]]], iterator_types = ["reduction"]}
// CHECK-SAME:        ins(%[[W]] : tensor<?xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]], #[[$SCALAR]]], iterator_types = []}
// CHECK-SAME:        ins(%[[TOTAL]], %[[WSUM]] : tensor<f32>, tensor<f32>)
// CHECK:           arith.divf
// CHECK:         return %[[MEAN]], %[[LP]] : tensor<f32>, tensor<?x10xf32>
func.func @mean(%x: tensor<?x10xf32>, %l: tensor<?xi32>) -> (tensor<f32>, tensor<?x10xf32>) {
  %none = onnx.NoValue
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%x, %l, %none) : (tensor<?x10xf32>, tensor<?xi32>, none) -> (tensor<f32>, tensor<?x10xf32>)
  return %0#0, %0#1 : tensor<f32>, tensor<?x10xf32>
}

// -----

// sum: the losses are added, with no division by the weights.
// CHECK-LABEL: func.func @sum
// CHECK:         %[[TOTAL:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:         } -> tensor<f32>
// CHECK-NOT:     arith.divf
// CHECK:         return %[[TOTAL]] : tensor<f32>
func.func @sum(%x: tensor<?x10xf32>, %l: tensor<?xi64>) -> tensor<f32> {
  %none = onnx.NoValue
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%x, %l, %none) {reduction = "sum"} : (tensor<?x10xf32>, tensor<?xi64>, none) -> (tensor<f32>, tensor<?x10xf32>)
  return %0#0 : tensor<f32>
}

// -----

// none with class weights and ignore_index over [N, C, D] scores: w reads
// weights[clamp(label)] and is 0 where label == ignore_index; the per-sample
// losses are the result. Samples are (n, d): the class dim is dropped from
// the sample maps and extracts read log_prob[n, label, d].
// CHECK-DAG:   #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[$SAMPLE3:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$S2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @none_weights_ignore_index
// CHECK-SAME:    (%[[X:.*]]: tensor<?x10x3xf32>, %[[L:.*]]: tensor<?x3xi64>, %[[WEIGHTS:.*]]: tensor<10xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$SAMPLE3]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK:         %[[LP:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$SAMPLE3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[W:.*]] = linalg.generic {indexing_maps = [#[[$S2]], #[[$S2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[L]] : tensor<?x3xi64>)
// CHECK-NEXT:    ^bb0(%[[LABEL:.*]]: i64, %{{.*}}: f32):
// CHECK:           %[[CLS:.*]] = arith.minsi
// CHECK-NEXT:      %[[WC:.*]] = tensor.extract %[[WEIGHTS]][%[[CLS]]] : tensor<10xf32>
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant -100 : i64
// CHECK-NEXT:      %[[IS:.*]] = arith.cmpi eq, %[[LABEL]], %[[IGN]] : i64
// CHECK-NEXT:      %[[WS:.*]] = arith.select %[[IS]], %[[ZERO]], %[[WC]] : f32
// CHECK-NEXT:      linalg.yield %[[WS]] : f32
// CHECK:         %[[LOSSES:.*]] = linalg.generic {indexing_maps = [#[[$S2]], #[[$S2]], #[[$S2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[L]], %[[W]] : tensor<?x3xi64>, tensor<?x3xf32>)
// CHECK:           %[[CLS2:.*]] = arith.minsi
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D:.*]] = linalg.index 1 : index
// CHECK-NEXT:      tensor.extract %[[LP]][%[[N]], %[[CLS2]], %[[D]]] : tensor<?x10x3xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[LOSSES]] : tensor<?x3xf32>
func.func @none_weights_ignore_index(%x: tensor<?x10x3xf32>, %l: tensor<?x3xi64>, %w: tensor<10xf32>) -> tensor<?x3xf32> {
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%x, %l, %w) {reduction = "none", ignore_index = -100 : i64}
      : (tensor<?x10x3xf32>, tensor<?x3xi64>, tensor<10xf32>) -> (tensor<?x3xf32>, tensor<?x10x3xf32>)
  return %0#0 : tensor<?x3xf32>
}

// -----

// mean with weights: the divisor is the sum of the per-sample weights.
// CHECK-LABEL: func.func @mean_weights
// CHECK-SAME:    %[[WEIGHTS:[^:]*]]: tensor<10xf32>)
// CHECK:         %[[W:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<?xi64>)
// CHECK:           tensor.extract %[[WEIGHTS]]
// CHECK:         %[[LOSSES:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK:         %[[TOTAL:.*]] = linalg.generic {{.*}} ins(%[[LOSSES]] :
// CHECK:         %[[WSUM:.*]] = linalg.generic {{.*}} ins(%[[W]] :
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[TOTAL]], %[[WSUM]] :
// CHECK:           arith.divf
// CHECK:         return %[[MEAN]]
func.func @mean_weights(%x: tensor<?x10xf32>, %l: tensor<?xi64>, %w: tensor<10xf32>) -> tensor<f32> {
  %0:2 = onnx.SoftmaxCrossEntropyLoss(%x, %l, %w) : (tensor<?x10xf32>, tensor<?xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<?x10xf32>)
  return %0#0 : tensor<f32>
}
