//===- Recurrent.cpp - gradient rules of RNN, GRU and LSTM ----------------===//
//
// The training graph runs GRU and LSTM as GRUTraining and LSTMTraining
// (generate-artifacts swaps them in before differentiating: they keep the
// gates of every step); RNN's output already holds every hidden state. Each
// rule is one back-propagation-through-time op (RNNGrad, GRUGrad,
// LSTMGrad) with the forward operands, the saved values and the result
// gradients, whose outputs are the operand gradients.
//
//===----------------------------------------------------------------------===//

#include "compiler/autodiff/rules/RuleSupport.h"

using namespace mlir;

namespace odt {
namespace {

/// The forward op's attributes, for its gradient op.
SmallVector<NamedAttribute> copyAttributes(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (attr.getName() != "onnx.name")
      attrs.push_back(attr);
  return attrs;
}

/// `dy` or, for a result nothing differentiable reads, no value.
Value orNoValue(GradientBuilder &b, Value dy) { return dy ? dy : b.noValue(); }

/// Builds `name` and hands its results to the operand gradients at
/// `operandIndices` (result i -> operand operandIndices[i]).
LogicalResult buildBackThroughTime(Operation *op, GradientBuilder &b,
                                   StringRef name, ValueRange operands,
                                   ArrayRef<unsigned> operandIndices,
                                   MutableArrayRef<Value> dx) {
  if (b.needsGradient(4)) {
    b.emitError() << "sequence_lens has no gradient";
    return failure();
  }
  Operation *grad =
      b.createOp(name, operands, copyAttributes(op), operandIndices.size());
  if (!grad)
    return failure();
  for (auto [result, operand] : llvm::enumerate(operandIndices))
    if (b.needsGradient(operand))
      dx[operand] = grad->getResult(result);
  return success();
}

ODT_GRADIENT_RULE(RNN) {
  SmallVector<Value> operands(op->getOperands());
  operands.append({op->getResult(0), orNoValue(b, dy[0]), orNoValue(b, dy[1])});
  return buildBackThroughTime(op, b, "onnx.ms.RNNGrad", operands,
                              {0, 1, 2, 3, 5}, dx);
}

ODT_GRADIENT_RULE(GRUTraining) {
  SmallVector<Value> operands(op->getOperands());
  operands.append({op->getResult(0), op->getResult(2), orNoValue(b, dy[0]),
                   orNoValue(b, dy[1])});
  return buildBackThroughTime(op, b, "onnx.ms.GRUGrad", operands,
                              {0, 1, 2, 3, 5}, dx);
}

ODT_GRADIENT_RULE(LSTMTraining) {
  SmallVector<Value> operands(op->getOperands());
  operands.append({op->getResult(0), op->getResult(3), op->getResult(4),
                   orNoValue(b, dy[0]), orNoValue(b, dy[1]),
                   orNoValue(b, dy[2])});
  return buildBackThroughTime(op, b, "onnx.ms.LSTMGrad", operands,
                              {0, 1, 2, 3, 5, 6, 7}, dx);
}

} // namespace

void attachRecurrentGradients(MLIRContext *context) {
  ODT_ATTACH_RULE(RNN);
  ODT_ATTACH_RULE(GRUTraining);
  ODT_ATTACH_RULE(LSTMTraining);
}

} // namespace odt
