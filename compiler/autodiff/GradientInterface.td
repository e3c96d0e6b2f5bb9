//===- GradientInterface.td - gradient rules of onnx ops ----*- tablegen -*-===//
//
// A differentiable onnx op builds the gradients of its operands from those
// of its results. The rules are attached to the ops as external models
// (compiler/autodiff/rules/<Family>.cpp), so the dialect stays free of the
// autodiff; an op without the interface on a differentiable path is an error
// that names the node.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_AUTODIFF_GRADIENT_INTERFACE
#define ODT_AUTODIFF_GRADIENT_INTERFACE

include "mlir/IR/OpBase.td"

def GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::odt";
  let description = [{
    Reverse-mode rule: given the gradients of the op's results (a null value
    for a result nothing differentiable uses), build the gradients of the
    operands marked in `builder.needsGradient(i)` and store them in
    `operandGradients` (same index as the operand; leave others null). The
    builder's insertion point lies after every forward op, so the rule may
    read any operand or result.
  }];
  let methods = [
    InterfaceMethod<
      "Builds operand gradients; fails (after an error naming the node) when "
      "the op's configuration has no rule.",
      "::mlir::LogicalResult", "buildGradients",
      (ins "::odt::GradientBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGradients)>,
  ];
}

#endif // ODT_AUTODIFF_GRADIENT_INTERFACE
