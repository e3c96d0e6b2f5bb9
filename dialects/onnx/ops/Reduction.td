//===- Reduction.td - reductions, normalizations, softmax and losses -*- tablegen -*-===//

#ifndef ODT_ONNX_OPS_REDUCTION
#define ODT_ONNX_OPS_REDUCTION

include "dialects/onnx/ONNXBase.td"

def ONNX_ReduceSumOp : ONNX_Op<"ReduceSum"> {
  let summary = "ai.onnx ReduceSum (opset 13+: axes as an input)";
  let arguments = (ins ONNX_FloatTensor:$data, ONNX_OptI64Tensor:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The normalized (non-negative, sorted) reduction axes, or failure if
    /// the axes input is not a constant.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>> getConstantAxes();
  }];
}

def ONNX_SoftmaxCrossEntropyLossOp : ONNX_Op<"SoftmaxCrossEntropyLoss"> {
  let summary = "ai.onnx SoftmaxCrossEntropyLoss";
  let arguments = (ins ONNX_FloatTensor:$scores, ONNX_IndexTensor:$labels,
                       ONNX_OptFloatTensor:$weights,
                       OptionalAttr<I64Attr>:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$output, AnyTensor:$log_prob);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_REDUCTION
