//===- NN.td - matrix products, convolutions and pooling -*- tablegen -*-===//

#ifndef ODT_ONNX_OPS_NN
#define ODT_ONNX_OPS_NN

include "dialects/onnx/ONNXBase.td"

def ONNX_GemmOp : ONNX_Op<"Gemm"> {
  let summary = "ai.onnx Gemm: Y = alpha * A' * B' + beta * C";
  let arguments = (ins ONNX_FloatTensor:$A, ONNX_FloatTensor:$B,
                       ONNX_OptFloatTensor:$C,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_NN
