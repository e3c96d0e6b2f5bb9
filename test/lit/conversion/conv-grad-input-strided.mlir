// RUN: odt-opt %s --odt-convert-onnx-to-linalg --canonicalize | FileCheck %s

// A stride-2 convolution's input gradient: dY (3x3) is spread with zeros
// into 5x5 (dYs[2o] = dY[o]), padded by 1 before and 2 after (to the 6x6
// input plus the 3x3 window's reach), and correlated with the flipped,
// transposed filter through the products of image columns; no scalar
// gather with a division per term (tensor.extract) is left.
// CHECK-LABEL: func.func @input_gradient_stride_2
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<?x4x5x5xf32>
// CHECK:         %[[SPREAD:.*]] = tensor.insert_slice %{{.*}} into %[[ZEROS]][0, 0, 0, 0] [%{{.*}}, 4, 3, 3] [1, 1, 2, 2] : tensor<?x4x3x3xf32> into tensor<?x4x5x5xf32>
// CHECK:         tensor.pad %[[SPREAD]] low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK-NOT:     tensor.extract %
// CHECK:         return
func.func @input_gradient_stride_2(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x3x6x6xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<?x4x3x3xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#0 : tensor<?x3x6x6xf32>
}
