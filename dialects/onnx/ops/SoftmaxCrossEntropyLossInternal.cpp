//===- SoftmaxCrossEntropyLossInternal.cpp - the loss with ignore_index input -===//
//
// onnx.ms.SoftmaxCrossEntropyLossInternal and its Grad: scores (log_prob)
// [N, C] or [N, C, D1..Dk], labels [N] or [N, D1..Dk], optional weights [C]
// and an optional int64 ignore_index holding one value. output_type, when
// present, is the results' element type.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

static LogicalResult verifyLossOperands(Operation *op, Value scores,
                                        Value labels, Value weights,
                                        Value ignoreIndex, StringRef reduction,
                                        std::optional<int64_t> outputType) {
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return emitNodeError(op) << "reduction must be 'mean', 'sum' or 'none', "
                                "got '" << reduction << "'";
  if (outputType && !getFloatTypeFromONNX(op->getContext(), *outputType))
    return emitNodeError(op) << "output_type " << *outputType
                             << " is not a float type";
  std::optional<int64_t> scoresRank = getRank(scores);
  std::optional<int64_t> labelsRank = getRank(labels);
  if (scoresRank && *scoresRank < 2)
    return emitNodeError(op) << "scores must have rank >= 2, got " << *scoresRank;
  if (scoresRank && labelsRank && *labelsRank != *scoresRank - 1)
    return emitNodeError(op) << "labels must have rank " << *scoresRank - 1
                             << ", got " << *labelsRank;
  if (!isNoValue(weights) &&
      (failed(verifyRank(op, weights, 1, "weights")) ||
       failed(verifySameElementType(op, scores, weights, "scores and weights"))))
    return failure();
  if (!isNoValue(ignoreIndex))
    if (auto type = dyn_cast<RankedTensorType>(ignoreIndex.getType()))
      if (type.hasStaticShape() && type.getNumElements() != 1)
        return emitNodeError(op) << "ignore_index must hold one value";
  return success();
}

static LogicalResult unifyLoss(ShapeContext &context, Operation *op,
                               Value scores, Value labels, Value weights) {
  Shape s = context.getShape(scores), l = context.getShape(labels);
  for (size_t i = 0; i < l.size(); ++i)
    if (failed(context.unify(l[i], i == 0 ? s[0] : s[i + 1], op,
                             "labels do not match the batch dims of scores")))
      return failure();
  if (!isNoValue(weights) &&
      failed(context.unify(context.getShape(weights)[0], s[1], op,
                           "weights must have one entry per class")))
    return failure();
  return success();
}

static Type resultType(Operation *op, Value scores,
                       std::optional<int64_t> outputType) {
  if (outputType)
    return getFloatTypeFromONNX(op->getContext(), *outputType);
  return ShapeContext::getElementType(scores);
}

LogicalResult SoftmaxCrossEntropyLossInternalOp::verify() {
  return verifyLossOperands(*this, getScores(), getLabels(), getWeights(),
                            getIgnoreIndex(), getReduction(), getOutputType());
}

LogicalResult
SoftmaxCrossEntropyLossInternalOp::inferShapes(ShapeContext &context) {
  if (failed(unifyLoss(context, *this, getScores(), getLabels(), getWeights())))
    return failure();
  Type type = resultType(*this, getScores(), getOutputType());
  Shape loss;
  if (getReduction() == "none")
    loss = context.getShape(getLabels());
  context.setShape(getOutput(), loss, type);
  context.setShape(getLogProb(), context.getShape(getScores()), type);
  return success();
}

LogicalResult SoftmaxCrossEntropyLossInternalGradOp::verify() {
  if (failed(verifyLossOperands(*this, getLogProb(), getLabel(), getWeight(),
                                getIgnoreIndex(), getReduction(),
                                getOutputType())))
    return failure();
  if (!isNoValue(getBias()) &&
      failed(verifySameElementType(*this, getLogProb(), getBias(),
                                   "log_prob and bias")))
    return failure();
  return success();
}

LogicalResult
SoftmaxCrossEntropyLossInternalGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyLoss(context, *this, getLogProb(), getLabel(), getWeight())))
    return failure();
  Shape dY = context.getShape(getDY());
  Shape expected;
  if (getReduction() == "none")
    expected = context.getShape(getLabel());
  if (dY.size() != expected.size())
    return emitNodeError(*this) << "dY must have the shape of the loss";
  for (size_t i = 0; i < dY.size(); ++i)
    if (failed(context.unify(dY[i], expected[i], *this,
                             "dY must have the shape of the loss")))
      return failure();
  if (!isNoValue(getBias()) &&
      failed(unifyShapes(context, *this, getBias(), getLogProb(),
                         "bias must have the shape of log_prob")))
    return failure();
  context.setShape(getDLogits(), context.getShape(getLogProb()),
                   resultType(*this, getLogProb(), getOutputType()));
  return success();
}

} // namespace odt::onnx
