// RUN: odt-opt %s --odt-convert-onnx-to-linalg --canonicalize | FileCheck %s

// A stride-2 convolution's input gradient, one correlation per phase of
// dX's positions (p = 2q + r along each dim): with padding 1, the even rows
// take the filter's middle tap (1), the odd ones taps 2 and 0 over dY and
// the next dY row (dY padded by one at the end). Each phase is a
// conv_2d_nchw_fchw with its taps of the flipped, transposed filter
// (Wt[c, m, j] = W[m, c, firstTap + (taps - 1 - j) * 2]). The even-even
// phase reads dY itself; the others read windows of one copy of dY padded
// for all of them (one more row and column at the end), made after the
// reads of dY itself (so that the producer of dY can write it in place),
// not a padded copy each. dX (6x6: 3 positions per phase and dim) is one
// elementwise op reading each phase at (h floordiv 2, w floordiv 2) and
// picking by (h mod 2, w mod 2), not four strided inserts. No spread-out
// dY (zeros multiplied), no scalar gather with a division per term
// (tensor.extract).
// CHECK-DAG:     #[[EVEN_EVEN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2 * -2 + 1, d3 * -2 + 1)>
// CHECK-DAG:     #[[ODD_ODD:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2 * -2 + 2, d3 * -2 + 2)>
// CHECK-DAG:     #[[PHASE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
// CHECK-LABEL: func.func @input_gradient_stride_2
// CHECK-SAME:    (%[[DY:.*]]: tensor<?x4x3x3xf32>, %{{.*}}: tensor<?x3x6x6xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK:         %[[DX:.*]] = tensor.empty(%{{.*}}) : tensor<?x3x6x6xf32>
// CHECK:         %[[W00:.*]] = linalg.generic {indexing_maps = [#[[EVEN_EVEN]], {{.*}} ins(%[[W]] : {{.*}}) outs(%{{.*}} : tensor<3x4x1x1xf32>)
// CHECK:         %[[P00:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[DY]], %[[W00]] : tensor<?x4x3x3xf32>, tensor<3x4x1x1xf32>)
// CHECK:         %[[PAD:.*]] = tensor.pad %[[DY]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:         tensor.extract_slice %[[PAD]][0, 0, 0, 0] [%{{.*}}, 4, 3, 4] [1, 1, 1, 1]
// CHECK:         %[[P01:.*]] = linalg.conv_2d_nchw_fchw {{.*}} tensor<3x4x1x2xf32>
// CHECK:         tensor.extract_slice %[[PAD]][0, 0, 0, 0] [%{{.*}}, 4, 4, 3] [1, 1, 1, 1]
// CHECK:         %[[P10:.*]] = linalg.conv_2d_nchw_fchw {{.*}} tensor<3x4x2x1xf32>
// CHECK:         %[[DY11:.*]] = tensor.extract_slice %[[PAD]][0, 0, 0, 0] [%{{.*}}, 4, 4, 4] [1, 1, 1, 1]
// CHECK:         %[[W11:.*]] = linalg.generic {indexing_maps = [#[[ODD_ODD]], {{.*}} outs(%{{.*}} : tensor<3x4x2x2xf32>)
// CHECK:         %[[P11:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[DY11]], %[[W11]] : tensor<?x4x4x4xf32>, tensor<3x4x2x2xf32>)
// CHECK-NOT:     tensor.insert_slice
// CHECK:         %[[DXI:.*]] = linalg.generic {indexing_maps = [#[[PHASE]], #[[PHASE]], #[[PHASE]], #[[PHASE]], #{{.*}}], {{.*}} ins(%[[P00]], %[[P01]], %[[P10]], %[[P11]] : {{.*}}) outs(%[[DX]] : tensor<?x3x6x6xf32>)
// CHECK:           arith.remui
// CHECK:           arith.remui
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     tensor.extract %
// CHECK:         return %[[DXI]]
func.func @input_gradient_stride_2(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x3x6x6xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<?x4x3x3xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#0 : tensor<?x3x6x6xf32>
}

// Stride 3 over a 2x2 filter: the phase r = 2 of each dim meets no tap, so
// its positions are zero; with padding 2 over a 3-tap window (stride 2)
// phase 1 starts reading dY one row in (dY cropped, not padded).
// CHECK-LABEL: func.func @input_gradient_phases_without_taps
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         return
func.func @input_gradient_phases_without_taps(%dy: tensor<1x3x3x2xf32>, %x: tensor<1x2x8x7xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x2x8x7xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>}
      : (tensor<1x3x3x2xf32>, tensor<1x2x8x7xf32>, tensor<3x2x2x2xf32>) -> (tensor<1x2x8x7xf32>, tensor<3x2x2x2xf32>, tensor<3xf32>)
  return %0#0 : tensor<1x2x8x7xf32>
}

// With padding 2 at the top and left, phases start reading dY one row or
// column in: their windows of the shared copy are cropped, not padded.
// dX's 5 columns are 3 and 2 per phase: the phases are strided inserts.
// CHECK-LABEL: func.func @input_gradient_cropped_phase
// CHECK:         %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 0, 1]
// CHECK:         tensor.extract_slice %[[PAD]][0, 0, 0, 1] [2, 3, 4, 2] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %[[PAD]][0, 0, 1, 0] [2, 3, 3, 4] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %[[PAD]][0, 0, 1, 1] [2, 3, 3, 2] [1, 1, 1, 1]
// CHECK:         tensor.insert_slice {{.*}} [1, 1, 2, 2]
// CHECK-NOT:     tensor.pad
// CHECK:         return
func.func @input_gradient_cropped_phase(%dy: tensor<2x3x4x3xf32>, %x: tensor<2x2x6x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<2x2x6x5xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 2, 2, 2, 1>, strides = array<i64: 2, 2>}
      : (tensor<2x3x4x3xf32>, tensor<2x2x6x5xf32>, tensor<3x2x3x3xf32>) -> (tensor<2x2x6x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>)
  return %0#0 : tensor<2x2x6x5xf32>
}
