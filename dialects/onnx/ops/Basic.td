//===- Basic.td - values: absent optional inputs and constants -*- tablegen -*-===//

#ifndef ODT_ONNX_OPS_BASIC
#define ODT_ONNX_OPS_BASIC

include "dialects/onnx/ONNXBase.td"

def ONNX_NoValueOp : Op<ONNX_Dialect, "NoValue", [Pure, ConstantLike]> {
  let summary = "an absent optional input";
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}

def ONNX_ConstantOp : ONNX_Op<"Constant", [ConstantLike]> {
  let summary = "a constant tensor (ONNX initializers and Constant nodes)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_BASIC
