//===- Elementwise.td - elementwise math, activations, comparisons, logic, casts -*- tablegen -*-===//

#ifndef ODT_ONNX_OPS_ELEMENTWISE
#define ODT_ONNX_OPS_ELEMENTWISE

include "dialects/onnx/ONNXBase.td"

def ONNX_ReluOp : ONNX_Op<"Relu"> {
  let summary = "ai.onnx Relu";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
}

#endif // ODT_ONNX_OPS_ELEMENTWISE
