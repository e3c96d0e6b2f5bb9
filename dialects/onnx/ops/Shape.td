//===- Shape.td - shape and data movement: reshape, transpose, gather, slice, ... -*- tablegen -*-===//

#ifndef ODT_ONNX_OPS_SHAPE
#define ODT_ONNX_OPS_SHAPE

include "dialects/onnx/ONNXBase.td"

def ONNX_IdentityOp : ONNX_Op<"Identity"> {
  let summary = "ai.onnx Identity";
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
}

#endif // ODT_ONNX_OPS_SHAPE
