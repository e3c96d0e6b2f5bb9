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
  let description = [{
    The importer turns a Constant node's value_float(s) and value_int(s)
    into `value` (f32 and i64 tensors); string and sparse constants are
    refused.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def ONNX_ConstantOfShapeOp : ONNX_Op<"ConstantOfShape"> {
  let summary = "ai.onnx ConstantOfShape (value: one element; default f32 0)";
  let arguments = (ins TensorOf<[I64]>:$input,
                       OptionalAttr<ElementsAttr>:$value);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_RangeOp : ONNX_Op<"Range"> {
  let summary = "ai.onnx Range: start, start + delta, ... before limit";
  let arguments = (ins TensorOf<[F32, F64, I16, I32, I64]>:$start,
                       TensorOf<[F32, F64, I16, I32, I64]>:$limit,
                       TensorOf<[F32, F64, I16, I32, I64]>:$delta);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_BASIC
