// RUN: odt-opt %s --split-input-file --odt-linalg-pipeline | FileCheck %s --check-prefix=MIDDLE
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(odt-linalg-pipeline, func.func(odt-select-convolution-kernels, odt-lower-convolutions))' | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(odt-linalg-pipeline, func.func(odt-select-convolution-kernels, odt-lower-convolutions), canonicalize, cse, func.func(odt-vectorize-contractions{vector-width=16 rows=8 depth=256}))' | FileCheck %s --check-prefix=KERNEL

// The middle keeps the convolution and its Relu apart (the Relu reading a
// convolution is a backend's fusion).
// MIDDLE-LABEL: func.func @conv_relu
// MIDDLE:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// MIDDLE:         linalg.generic {{.*}} ins(%[[CONV]] :
// MIDDLE:           arith.maximumf
// MIDDLE-LABEL: func.func @conv_relu_and_more

// The CPU applies a Relu that is a convolution's only reader in the
// convolution's kernel (odt.convolution's epilogue = "relu"): on each
// image's product, inside the loop over images, and the Relu's own loop is
// gone. odt-vectorize-contractions then runs it on the product's register
// tiles (its epilogue, seen through the expansion of the image's
// [filters, positions] result), so no elementwise loop is left.
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
