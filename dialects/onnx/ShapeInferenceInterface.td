//===- ShapeInferenceInterface.td - symbolic shape inference -*- tablegen -*-===//
//
// Every onnx op computes the symbolic shapes of its results from those of its
// operands. The same function serves the compiler's shape-inference pass (which
// refines result types and unifies symbolic dims) and the diagnostics for
// shapes that cannot broadcast or multiply.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_SHAPE_INFERENCE_INTERFACE
#define ODT_ONNX_SHAPE_INFERENCE_INTERFACE

include "mlir/IR/OpBase.td"

def ONNXShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::odt::onnx";
  let description = [{
    Computes the symbolic shape of every tensor result from the symbolic
    shapes of the operands held in a ShapeContext. An implementation may
    require two dims to be equal (ShapeContext::unify), which either binds a
    symbol or reports a located error.
  }];
  let methods = [
    InterfaceMethod<"Infers result shapes; emits an error and fails on a "
                    "shape mismatch.",
      "::mlir::LogicalResult", "inferShapes",
      (ins "::odt::onnx::ShapeContext &":$context)>
  ];
}

#endif // ODT_ONNX_SHAPE_INFERENCE_INTERFACE
