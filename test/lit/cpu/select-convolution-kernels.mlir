// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg --canonicalize --odt-select-convolution-kernels | FileCheck %s
// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg --canonicalize --odt-select-convolution-kernels=remarks=true 2>&1 >/dev/null | FileCheck %s --check-prefix=WHY
// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg --canonicalize --odt-select-convolution-kernels=force-kernel=linalg | FileCheck %s --check-prefix=LINALG
// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg --canonicalize --odt-select-convolution-kernels="force-kernel=image_partials remarks=true" 2>&1 | FileCheck %s --check-prefix=PARTIALS
// RUN: not odt-opt %s --split-input-file --odt-select-convolution-kernels=force-kernel=winograd 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The CPU's convolution selection (codegen/cpu/ConvolutionSelection.cpp),
// checked on its attributes alone: which convolutions of the middle get a
// kernel of the CPU's own, and which keep linalg's loops.

// An f32 convolution with a static filter: a product per image, its 64
// output positions laid out as 2 panels of 32 (4 rows each; no odt.target:
// AVX-512's 2 x 16 lanes).
// CHECK-LABEL: func.func @conv
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {kernel = "image_columns", panel_columns = 32 : i64}
// WHY:           remark: convolution: image_columns: a product per image. Its columns are laid out as panels of 32 positions, read where they are.
// LINALG-LABEL:  func.func @conv
// PARTIALS:      remark: convolution: image_columns: a product per image. Its columns are laid out as panels of 32 positions, read where they are. The forced image_partials kernel cannot compute this convolution.
func.func @conv(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

// Its only reader a Relu: the Relu runs in the kernel.
// CHECK-LABEL: func.func @conv_relu
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {epilogue = "relu", kernel = "image_columns", panel_columns = 32 : i64}
// WHY:           remark: convolution: image_columns: a product per image; the Relu reading it runs on the product's result.
func.func @conv_relu(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x8x8xf32>
  %1 = onnx.Relu(%0) : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %1 : tensor<?x4x8x8xf32>
}

// -----

// Positions that do not split into whole panels (5 x 5) or make only one
// (4 x 4): the columns as one matrix, several small images side by side
// (up to 64 positions), and 9 x 9 positions (81) one image at a time.
// CHECK-LABEL: func.func @conv_without_panels
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {chunk_images = 2 : i64, kernel = "image_columns"}
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {chunk_images = 4 : i64, kernel = "image_columns"}
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {kernel = "image_columns"}
// WHY:           remark: convolution: image_columns: a product per 2 images (their 50 positions side by side).
// WHY:           remark: convolution: image_columns: a product per 4 images (their 64 positions side by side).
// WHY:           remark: convolution: image_columns: a product per image.{{$}}
func.func @conv_without_panels(%x: tensor<?x3x5x5xf32>, %y: tensor<?x3x4x4xf32>, %z: tensor<?x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x4x5x5xf32>, tensor<?x4x4x4xf32>, tensor<?x4x9x9xf32>) {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x5x5xf32>
  %1 = onnx.Conv(%y, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x4x4xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x4x4xf32>
  %2 = onnx.Conv(%z, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x9x9xf32>
  return %0, %1, %2 : tensor<?x4x5x5xf32>, tensor<?x4x4x4xf32>, tensor<?x4x9x9xf32>
}

// -----

// f16 (accumulated in f32): linalg's loops.
// CHECK-LABEL: func.func @conv_f16
// CHECK-NOT:     odt.convolution
// WHY:           remark: convolution: Not an f32 convolution with a static filter: linalg's loops.
func.func @conv_f16(%x: tensor<?x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<?x4x8x8xf16> {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>, none) -> tensor<?x4x8x8xf16>
  return %0 : tensor<?x4x8x8xf16>
}

// -----

// ConvGrad with one group: the input gradient is a convolution (a product
// per image), the filter gradient products summed in 4 image groups.
// CHECK-LABEL: func.func @conv_grad
// CHECK:         linalg.generic {{.*}}odt.convolution = {image_groups = 4 : i64, kernel = "image_columns"}
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {kernel = "image_columns", panel_columns = 32 : i64}
// WHY:           remark: convolution: image_columns: a product per image, summed in 4 image groups in parallel.
// WHY:           remark: convolution: image_columns: a product per image.
// PARTIALS-LABEL: func.func @conv_grad
// PARTIALS:      linalg.generic {{.*}}odt.convolution = {kernel = "image_partials"}
// PARTIALS:      linalg.conv_2d_nchw_fchw {{{.*}}odt.convolution = {kernel = "image_columns", panel_columns = 32 : i64}
func.func @conv_grad(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x4x8x8xf32>, tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// -----

// A filter gradient with a vector's worth of filters, fewer than a
// window's values (16 < 8 * 3 * 3): computed transposed. A 1x1 one whose
// filters outnumber its channels (32 > 16) keeps the row per position.
// CHECK-LABEL: func.func @transposed_filter_gradient
// CHECK:         linalg.generic {{.*}}odt.convolution = {image_groups = 4 : i64, kernel = "image_columns", transposed = true}
// CHECK:         linalg.generic {{.*}}odt.convolution = {image_groups = 4 : i64, kernel = "image_columns"}
// WHY:           remark: convolution: image_columns: a product per image, summed in 4 image groups in parallel. Computed transposed (dW^T = columns x dY^T): its 16 filters fill vectors and are fewer than the 72 values of a window.
// WHY:           remark: convolution: image_columns: a product per image, summed in 4 image groups in parallel.{{$}}
func.func @transposed_filter_gradient(%dy: tensor<?x16x8x8xf32>, %x: tensor<?x8x8x8xf32>, %w: tensor<16x8x3x3xf32>,
                                      %dy1: tensor<?x32x8x8xf32>, %x1: tensor<?x16x8x8xf32>, %w1: tensor<32x16x1x1xf32>) -> (tensor<16x8x3x3xf32>, tensor<32x16x1x1xf32>) {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x16x8x8xf32>, tensor<?x8x8x8xf32>, tensor<16x8x3x3xf32>) -> (tensor<?x8x8x8xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>)
  %1:3 = onnx.ms.ConvGrad(%dy1, %x1, %w1) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>}
      : (tensor<?x32x8x8xf32>, tensor<?x16x8x8xf32>, tensor<32x16x1x1xf32>) -> (tensor<?x16x8x8xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>)
  return %0#1, %1#1 : tensor<16x8x3x3xf32>, tensor<32x16x1x1xf32>
}

// -----

// Depthwise: the filter gradient as per-image partial sums; the forward
// depthwise convolution keeps linalg's loops (odt-vectorize-rows).
// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.depthwise_conv_2d_nchw_chw
// CHECK-NOT:       odt.convolution
// CHECK:         linalg.generic {{.*}}odt.convolution = {kernel = "image_partials"}
// WHY:           remark: convolution: image_partials (grouped, not f32 or not 2-D): a partial sum per image, then the images'.
func.func @depthwise(%x: tensor<?x8x6x6xf32>, %w: tensor<8x1x3x3xf32>, %dy: tensor<?x8x6x6xf32>) -> (tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>) {
  %none = onnx.NoValue
  %y = onnx.Conv(%x, %w, %none) {group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>, none) -> tensor<?x8x6x6xf32>
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x6x6xf32>, tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>) -> (tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>)
  return %y, %0#1 : tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>
}

// -----

// A config in the input is kept (forcing changes only the ones it makes).
// LINALG-NOT:    odt.convolution
// LINALG-LABEL:  func.func @given
// LINALG:        odt.convolution = {image_groups = 2 : i64, kernel = "image_columns"}
// CHECK-LABEL: func.func @given
// CHECK:         odt.convolution = {image_groups = 2 : i64, kernel = "image_columns"}
#dy = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 + d2, d6 + d3)>
#dw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @given(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  %dw = linalg.generic {indexing_maps = [#dy, #x, #dw], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x6x6xf32>, tensor<?x3x8x8xf32>) outs(%init : tensor<4x3x3x3xf32>)
      attrs = {odt.convolution = {image_groups = 2 : i64, kernel = "image_columns"}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// UNKNOWN: error: odt-select-convolution-kernels: force-kernel must be linalg, image_columns, image_partials or scattered_columns, not 'winograd'
