//===- NN.td - matrix products, convolutions and pooling -*- tablegen -*-===//
//
// Windowed ops (Conv, ConvTranspose, MaxPool, AveragePool) share one reading
// of their attributes and one set of size formulas: ops/NNGeometry.h, used
// by shape inference and by the lowerings alike.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS_NN
#define ODT_ONNX_OPS_NN

include "dialects/onnx/ONNXBase.td"

def ONNX_GemmOp : ONNX_Op<"Gemm"> {
  let summary = "ai.onnx Gemm: Y = alpha * A' * B' + beta * C";
  let arguments = (ins ONNX_FloatTensor:$A, ONNX_FloatTensor:$B,
                       ONNX_OptFloatTensor:$C,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$transA,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$transB);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_MatMulTensor : TensorOf<[F16, BF16, F32, F64, I32, I64]>;

def ONNX_MatMulOp : ONNX_Op<"MatMul"> {
  let summary = "ai.onnx MatMul: numpy.matmul (1-D promotion, batch "
                "broadcasting); Y has the element type of A";
  let arguments = (ins ONNX_MatMulTensor:$A, ONNX_MatMulTensor:$B);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ConvOp : ONNX_Op<"Conv"> {
  let summary = "ai.onnx Conv: N-d convolution (NCHW, weights M x C/group x "
                "k1 x ... x kn), optional bias";
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W,
                       ONNX_OptFloatTensor:$B,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ResizeOp : ONNX_Op<"Resize"> {
  let summary = "ai.onnx Resize (opsets 13-19): nearest, linear and cubic "
                "interpolation with every coordinate transformation";
  let description = [{
    The output size comes from `sizes` or from `scales` (constants; with
    opset 18's `axes`, for those axes only). Composite: each resized axis
    is a product with a constant interpolation matrix (its rows hold the
    taps of one output position), which odt-decompose-composite-ops builds
    from the attributes; the gradient is the transposed product. The
    resized axes must have static sizes.
  }];
  let arguments = (ins AnyTensor:$X, AnyTypeOf<[AnyTensor, NoneType]>:$roi,
                       AnyTypeOf<[ONNX_FloatTensor, NoneType]>:$scales,
                       ONNX_OptI64Tensor:$sizes,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$antialias,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                       DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value,
                       DefaultValuedAttr<StrAttr, "\"stretch\"">:$keep_aspect_ratio_policy,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ConvTransposeOp : ONNX_Op<"ConvTranspose"> {
  let summary = "ai.onnx ConvTranspose: the gradient of Conv with respect "
                "to its input (weights C x M/group x k1 x ... x kn)";
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W,
                       ONNX_OptFloatTensor:$B,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       OptionalAttr<DenseI64ArrayAttr>:$output_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_MaxPoolTensor : TensorOf<[F16, BF16, F32, F64, I8, UI8]>;

def ONNX_MaxPoolOp : ONNX_Op<"MaxPool"> {
  let summary = "ai.onnx MaxPool: N-d max pooling; Indices (i64) are flat "
                "indices into X (row-major, or column-major spatial dims "
                "with storage_order = 1)";
  let arguments = (ins ONNX_MaxPoolTensor:$X,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$storage_order,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y, AnyTensor:$Indices);
  let hasVerifier = 1;
}

def ONNX_AveragePoolOp : ONNX_Op<"AveragePool"> {
  let summary = "ai.onnx AveragePool: N-d average pooling; padding counts "
                "in the divisor only with count_include_pad = 1";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$count_include_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_GlobalAveragePoolOp : ONNX_Op<"GlobalAveragePool"> {
  let summary = "ai.onnx GlobalAveragePool: the mean over every spatial dim "
                "(kept as 1s)";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_NN
