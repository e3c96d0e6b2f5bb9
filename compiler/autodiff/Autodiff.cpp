//===- Autodiff.cpp - reverse-mode differentiation of onnx graphs ---------===//

#include "compiler/autodiff/Autodiff.h"
#include "compiler/autodiff/GradientBuilder.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace odt {

static bool isFloatTensor(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

FailureOr<GradientResult> differentiate(func::FuncOp func, Value loss,
                                        ArrayRef<Value> arguments,
                                        onnx::ShapeContext &shapes) {
  Block &block = func.front();
  SmallVector<Operation *> forwardOps;
  for (Operation &op : block.without_terminator())
    forwardOps.push_back(&op);

  // Values that depend on the arguments through floating-point data.
  llvm::DenseSet<Value> varied;
  for (Value argument : arguments)
    if (isFloatTensor(argument))
      varied.insert(argument);
  for (Operation *op : forwardOps)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return varied.contains(v); }))
      for (Value result : op->getResults())
        if (isFloatTensor(result))
          varied.insert(result);
  // Values the loss depends on.
  llvm::DenseSet<Value> reaching{loss};
  for (Operation *op : llvm::reverse(forwardOps))
    if (llvm::any_of(op->getResults(),
                     [&](Value v) { return reaching.contains(v); }))
      reaching.insert(op->operand_begin(), op->operand_end());
  auto isActive = [&](Value v) {
    return varied.contains(v) && reaching.contains(v);
  };

  OpBuilder builder(block.getTerminator());
  GradientBuilder gradients(builder, shapes);
  GradientResult result;
  result.seed = gradients.fullLike(loss, 1.0);
  if (!result.seed)
    return failure();

  llvm::DenseMap<Value, Value> gradientOf;
  gradientOf[loss] = result.seed;
  for (Operation *op : llvm::reverse(forwardOps)) {
    SmallVector<Value> resultGradients;
    bool anyResultGradient = false;
    for (Value value : op->getResults()) {
      resultGradients.push_back(gradientOf.lookup(value));
      anyResultGradient |= bool(resultGradients.back());
    }
    if (!anyResultGradient)
      continue;
    SmallVector<bool> needed;
    for (Value operand : op->getOperands())
      needed.push_back(isActive(operand));
    if (llvm::none_of(needed, [](bool b) { return b; }))
      continue;
    gradients.setCurrentOp(op, needed);
    auto rule = dyn_cast<GradientOpInterface>(op);
    if (!rule) {
      gradients.emitError()
          << "no gradient rule for " << op->getName()
          << ", which lies on a differentiable path to the loss; freeze the "
             "parameters that reach it (--frozen) or add a rule";
      return failure();
    }
    SmallVector<Value> operandGradients(op->getNumOperands());
    if (failed(rule.buildGradients(gradients, resultGradients,
                                   operandGradients)) ||
        gradients.failed())
      return failure();
    gradients.setCurrentOp(op, {});
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      Value gradient = operandGradients[index];
      if (!needed[index] || !gradient)
        continue;
      if (gradient.getType() != operand.getType() &&
          shapes.getShape(gradient).size() != shapes.getShape(operand).size()) {
        gradients.emitError()
            << "internal: the gradient of operand #" << index << " has type "
            << gradient.getType() << ", the operand " << operand.getType();
        return failure();
      }
      Value &sum = gradientOf[operand];
      sum = sum ? gradients.create("onnx.Add", {sum, gradient}) : gradient;
      if (!sum)
        return failure();
    }
  }
  for (Value argument : arguments)
    result.gradients.push_back(gradientOf.lookup(argument));
  return result;
}

} // namespace odt
