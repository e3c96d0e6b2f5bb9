//===- ONNXOpInterface.td - what every onnx op provides -----*- tablegen -*-===//
//
// Every onnx op computes the symbolic shapes of its results from those of its
// operands. The same function serves the compiler's shape-inference pass (which
// refines result types and unifies symbolic dims) and the diagnostics for
// shapes that cannot broadcast or multiply. The op also tells the importer how
// many ONNX inputs it has, so absent trailing optional inputs can be filled in.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OP_INTERFACE
#define ODT_ONNX_OP_INTERFACE

include "mlir/IR/OpBase.td"

def ONNXOpInterface : OpInterface<"ONNXOpInterface"> {
  let cppNamespace = "::odt::onnx";
  let description = [{
    Implemented by every op of the onnx dialect that mirrors an ONNX node.
  }];
  let methods = [
    InterfaceMethod<
      "Infers the symbolic shapes of the results from those of the operands "
      "held in `context`; emits a node-located error and fails on a shape "
      "mismatch.",
      "::mlir::LogicalResult", "inferShapes",
      (ins "::odt::onnx::ShapeContext &":$context)>,
    StaticInterfaceMethod<
      "The number of ONNX inputs (operand groups) of the op; the importer "
      "fills absent trailing optional inputs up to it with onnx.NoValue.",
      "unsigned", "getONNXInputCount", (ins), [{}],
      [{ return ConcreteOp::kONNXInputCount; }]>,
    StaticInterfaceMethod<
      "Whether an ONNX input of the op is variadic (no padding then).",
      "bool", "hasVariadicONNXInputs", (ins), [{}],
      [{ return ConcreteOp::kHasVariadicONNXInputs; }]>,
    StaticInterfaceMethod<
      "The number of ONNX outputs (result groups) of the op.",
      "unsigned", "getONNXOutputCount", (ins), [{}],
      [{ return ConcreteOp::kONNXOutputCount; }]>,
    StaticInterfaceMethod<
      "Whether an ONNX output of the op is variadic (a sequence). Such ops "
      "list their single outputs first and size every variadic group like "
      "their first sequence input (SameVariadicResultSize).",
      "bool", "hasVariadicONNXOutputs", (ins), [{}],
      [{ return ConcreteOp::kHasVariadicONNXOutputs; }]>,
  ];
}

#endif // ODT_ONNX_OP_INTERFACE
