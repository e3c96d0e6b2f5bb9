// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// Reductions, softmaxes, ArgMax and CumSum: which linalg ops they become
// (a fill of the reduction's identity, then generics whose iterator types
// say what is reduced) and the formula each body computes.

// reducemax: max over the last axis (axes = [2], keepdims = 0): a fill of the identity, then one reduction
// CHECK-LABEL: func.func @reducemax(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf
func.func @reducemax(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceMax(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducemin: min over the last axis
// CHECK-LABEL: func.func @reducemin(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.minimumf
func.func @reducemin(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceMin(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducemean: sum over the last axis, then divided by the count
// CHECK-LABEL: func.func @reducemean(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.divf
func.func @reducemean(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceMean(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reduceprod: product over the last axis
// CHECK-LABEL: func.func @reduceprod(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
func.func @reduceprod(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceProd(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducel1: sum of |x|
// CHECK-LABEL: func.func @reducel1(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           math.absf
// CHECK:           arith.addf
func.func @reducel1(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceL1(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducel2: sqrt of the sum of x * x
// CHECK-LABEL: func.func @reducel2(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.sqrt
func.func @reducel2(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceL2(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducelogsum: log of the sum
// CHECK-LABEL: func.func @reducelogsum(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.log
func.func @reducelogsum(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceLogSum(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducelogsumexp: max + log(sum(exp(x - max))), the max taken as 0 where it is infinite
// CHECK-LABEL: func.func @reducelogsumexp(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.absf
// CHECK:           arith.cmpf oeq
// CHECK:           arith.select
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.log
// CHECK:           arith.addf
func.func @reducelogsumexp(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceLogSumExp(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reducesumsquare: sum of x * x
// CHECK-LABEL: func.func @reducesumsquare(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @reducesumsquare(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %axes = onnx.Constant {value = dense<2> : tensor<1xi64>} : tensor<1xi64>
  %0 = onnx.ReduceSumSquare(%x, %axes) {keepdims = 0 : i64} : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// argmax: axis 1: the first index of the largest value, a NaN counting as the largest
// CHECK-LABEL: func.func @argmax(
// CHECK:         linalg.fill
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:         linalg.index
// CHECK:           arith.cmpf uno
// CHECK:           arith.cmpf uno
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// CHECK:           arith.cmpf oeq
// CHECK:           arith.select
// CHECK:           arith.select
func.func @argmax(%x: tensor<2x4x8xf32>) -> tensor<2x8xi64> {
  %0 = onnx.ArgMax(%x) {axis = 1 : i64, keepdims = 0 : i64} : (tensor<2x4x8xf32>) -> tensor<2x8xi64>
  return %0 : tensor<2x8xi64>
}

// -----

// softmax: axis -1: exp(x - max) / sum(exp(x - max))
// CHECK-LABEL: func.func @softmax(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.divf
func.func @softmax(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = onnx.Softmax(%x) {axis = -1 : i64} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// logsoftmax: axis -1: x - max - log(sum(exp(x - max)))
// CHECK-LABEL: func.func @logsoftmax(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:           arith.subf
// CHECK:           math.log
// CHECK:           arith.subf
func.func @logsoftmax(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = onnx.LogSoftmax(%x) {axis = -1 : i64} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// cumsum: along axis 1, a scan: one step per position, carrying the
// results (unfilled: every position is written) and the running sum of a
// 2x1x8 slice; each step adds the position's slice and inserts the sum
// there (linear in the axis length).
// CHECK-LABEL: func.func @cumsum(
// CHECK:         %[[SUMS:.*]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK:         %[[RUNNING:.*]] = linalg.fill {{.*}} -> tensor<2x1x8xf32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %c4 step %{{.*}} iter_args(%[[Y:.*]] = %[[SUMS]], %[[R:.*]] = %[[RUNNING]])
// CHECK:           %[[X:.*]] = tensor.extract_slice %arg0[0, %[[I]], 0] [2, 1, 8] [1, 1, 1]
// CHECK:           %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[X]] : {{.*}}) outs(%[[R]] : {{.*}})
// CHECK:             arith.addf
// CHECK:           %[[W:.*]] = tensor.insert_slice %[[NEXT]] into %[[Y]][0, %[[I]], 0] [2, 1, 8] [1, 1, 1]
// CHECK:           scf.yield %[[W]], %[[NEXT]]
func.func @cumsum(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axis = onnx.Constant {value = dense<1> : tensor<i64>} : tensor<i64>
  %0 = onnx.CumSum(%x, %axis) : (tensor<2x4x8xf32>, tensor<i64>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// cumsum, reversed and exclusive: the scan runs from the last position
// down, and each position gets the sum of those after it (the running sum
// before the step's slice is added).
// CHECK-LABEL: func.func @cumsum_reverse_exclusive(
// CHECK:         %[[LAST:.*]] = arith.subi %{{.*}}, %c1
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[Y:.*]] = %{{.*}}, %[[R:.*]] = %{{.*}})
// CHECK:           %[[P:.*]] = arith.subi %[[LAST]], %[[I]]
// CHECK:           tensor.extract_slice %arg0[%[[P]]] [1] [1]
// CHECK:           %[[W:.*]] = tensor.insert_slice %[[R]] into %[[Y]][%[[P]]] [1] [1]
// CHECK:           %[[NEXT:.*]] = linalg.generic {{.*}} outs(%[[R]] :
// CHECK:           scf.yield %[[W]], %[[NEXT]]
func.func @cumsum_reverse_exclusive(%x: tensor<?xi64>) -> tensor<?xi64> {
  %axis = onnx.Constant {value = dense<0> : tensor<i64>} : tensor<i64>
  %0 = onnx.CumSum(%x, %axis) {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}
