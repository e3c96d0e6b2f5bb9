//===- SoftmaxCrossEntropyLoss.cpp - onnx.SoftmaxCrossEntropyLoss ---------===//
//
// The loss and its com.microsoft gradient share the checks (ReductionHelpers):
// scores [N, C] or [N, C, d1, ...], labels [N] or [N, d1, ...], optional
// per-class weights [C].
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

LogicalResult SoftmaxCrossEntropyLossOp::verify() {
  if (failed(verifyLossReduction(*this, getReduction())))
    return failure();
  return verifyLossOperands(*this, getScores(), getLabels(), getWeights());
}

LogicalResult SoftmaxCrossEntropyLossOp::inferShapes(ShapeContext &context) {
  if (failed(unifyLossShapes(context, *this, getScores(), getLabels(),
                             getWeights())))
    return failure();
  Type elementType = ShapeContext::getElementType(getScores());
  context.setShape(getOutput(),
                   lossShape(context, getLabels(), getReduction()),
                   elementType);
  context.setShape(getLogProb(), context.getShape(getScores()), elementType);
  return success();
}

LogicalResult SoftmaxCrossEntropyLossGradOp::verify() {
  if (failed(verifyLossReduction(*this, getReduction())))
    return failure();
  if (!isNoValue(getBias()))
    return emitNodeError(*this) << "the bias input is not supported";
  return verifyLossOperands(*this, getLogProb(), getLabel(), getWeight());
}

LogicalResult
SoftmaxCrossEntropyLossGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyLossShapes(context, *this, getLogProb(), getLabel(),
                             getWeight())))
    return failure();
  Shape dY = context.getShape(getDY());
  Shape expected = lossShape(context, getLabel(), getReduction());
  if (dY.size() != expected.size())
    return emitNodeError(*this) << "dY must have the shape of the loss";
  for (size_t i = 0; i < dY.size(); ++i)
    if (failed(context.unify(dY[i], expected[i], *this,
                             "dY must have the shape of the loss")))
      return failure();
  context.setShape(getDLogits(), context.getShape(getLogProb()),
                   ShapeContext::getElementType(getLogProb()));
  return success();
}

} // namespace odt::onnx
