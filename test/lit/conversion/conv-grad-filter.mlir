// RUN: odt-opt %s --odt-convert-onnx-to-linalg --canonicalize | FileCheck %s

// ConvGrad's filter gradient: 4 groups of images in parallel (a fixed
// count, so the sums' order does not depend on the thread count), each
// summing its images' products one image at a time into its own partial
// sum; then the partial sums are added.
// CHECK-LABEL: func.func @filter_gradient
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<4x4x27xf32>
// CHECK:         %[[PARTIALS:.*]] = scf.forall (%[[G:.*]]) in (4) shared_outs(%[[OUT:.*]] = %[[ZEROS]]) -> (tensor<4x4x27xf32>)
// CHECK:           %[[FIRST:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK:           %[[LAST:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK:           %[[MINE:.*]] = tensor.extract_slice %[[OUT]][%[[G]], 0, 0] [1, 4, 27] [1, 1, 1]
// CHECK:           %[[SUM:.*]] = scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %c1 iter_args(%{{.*}} = %[[MINE]]) -> (tensor<4x27xf32>)
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][%[[G]], 0, 0] [1, 4, 27] [1, 1, 1]
// CHECK:         %[[TOTAL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[PARTIALS]] : tensor<4x4x27xf32>)
// CHECK:         tensor.expand_shape %[[TOTAL]] {{.*}} into tensor<4x3x3x3xf32>
func.func @filter_gradient(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x4x6x6xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#1 : tensor<4x3x3x3xf32>
}
