// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(odt-convert-onnx-to-linalg, canonicalize, cse, odt-fuse-elementwise, canonicalize, cse, func.func(odt-vectorize-contractions{vector-width=16 rows=8 depth=256}))' | FileCheck %s --check-prefix=KERNEL

// A Relu that is a convolution's only reader is applied by the convolution:
// on each image's product, inside the loop over images, and the Relu itself
// lowers to nothing. odt-vectorize-contractions then runs it on the
// product's register tiles (its epilogue, seen through the expansion of the
// image's [filters, positions] result), so no elementwise loop is left.
// CHECK-LABEL: func.func @conv_relu
// CHECK:         scf.forall
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:           linalg.generic
// CHECK:             arith.maximumf
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     arith.maximumf
// CHECK:         return
// KERNEL-LABEL:  func.func @conv_relu
// KERNEL-NOT:      arith.maximumf %in
// KERNEL:          arith.maximumf %{{.*}}, %{{.*}} : vector<32xf32>
// KERNEL-NOT:      arith.maximumf %in
// KERNEL:          return
func.func @conv_relu(%x: tensor<?x1x28x28xf32>, %w: tensor<6x1x5x5xf32>, %b: tensor<6xf32>) -> tensor<?x6x28x28xf32> {
  %0 = onnx.Conv(%x, %w, %b) {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 5, 5>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<?x1x28x28xf32>, tensor<6x1x5x5xf32>, tensor<6xf32>) -> tensor<?x6x28x28xf32>
  %1 = onnx.Relu(%0) : (tensor<?x6x28x28xf32>) -> tensor<?x6x28x28xf32>
  return %1 : tensor<?x6x28x28xf32>
}

// -----

// Read by something else too, the convolution's output is kept and the Relu
// is its own loop.
// CHECK-LABEL: func.func @conv_relu_and_more
// CHECK:         scf.forall
// CHECK-NOT:       arith.maximumf
// CHECK:           scf.forall.in_parallel
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
func.func @conv_relu_and_more(%x: tensor<?x1x28x28xf32>, %w: tensor<6x1x5x5xf32>, %b: tensor<6xf32>) -> (tensor<?x6x28x28xf32>, tensor<?x6x28x28xf32>) {
  %0 = onnx.Conv(%x, %w, %b) {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 5, 5>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<?x1x28x28xf32>, tensor<6x1x5x5xf32>, tensor<6xf32>) -> tensor<?x6x28x28xf32>
  %1 = onnx.Relu(%0) : (tensor<?x6x28x28xf32>) -> tensor<?x6x28x28xf32>
  return %0, %1 : tensor<?x6x28x28xf32>, tensor<?x6x28x28xf32>
}
