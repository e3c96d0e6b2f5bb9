// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg --canonicalize | FileCheck %s

// ConvGrad's filter gradient in the middle's form (MiddleContract.h,
// docs/middle-contract.md): one linalg.generic over (m, c, kh, kw, n, oh, ow)
// summing dY[n, m, oh, ow] * Xpad[n, c, oh * s + kh * d, ow * s + kw * d]
// into a zero-filled dW. No loop over images, no columns: how it runs is
// the backend's (test/lit/cpu/convolution-kernels.mlir).
// CHECK-DAG:   #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
// CHECK-DAG:   #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 * 2 + d2, d6 * 2 + d3)>
// CHECK-DAG:   #[[DW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @filter_gradient
// CHECK:         %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<4x3x3x3xf32>
// CHECK:         %[[DW_:.*]] = linalg.generic {indexing_maps = [#[[DY]], #[[X]], #[[DW]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %[[PADDED]] : tensor<?x4x3x3xf32>, tensor<?x3x8x8xf32>) outs(%[[ZEROS]] : tensor<4x3x3x3xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     scf.forall
// CHECK:         return %[[DW_]]
func.func @filter_gradient(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<?x4x3x3xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#1 : tensor<4x3x3x3xf32>
}

// -----

// Depthwise (group = channels): the input channel is the filter's group,
// (m floordiv 1) * 1 + c folded to m + c with one channel per group.
// CHECK-DAG:   #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0 + d1, d2 + d5, d3 + d6)>
// CHECK-LABEL: func.func @depthwise_filter_gradient
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[X]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
func.func @depthwise_filter_gradient(%dy: tensor<?x8x6x6xf32>, %x: tensor<?x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<8x1x3x3xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x6x6xf32>, tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>) -> (tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>)
  return %0#1 : tensor<8x1x3x3xf32>
}
