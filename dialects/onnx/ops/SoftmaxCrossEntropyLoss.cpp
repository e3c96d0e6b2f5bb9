//===- SoftmaxCrossEntropyLoss.cpp - onnx.SoftmaxCrossEntropyLoss ---------===//
//
// The loss and its com.microsoft gradient share the checks: scores [N, C] or
// [N, C, d1, ...], labels [N] or [N, d1, ...], optional per-class weights [C].
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

static LogicalResult verifyReduction(Operation *op, StringRef reduction) {
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return emitNodeError(op) << "reduction must be 'mean', 'sum' or 'none', "
                                "got '"
                             << reduction << "'";
  return success();
}

static LogicalResult verifyScoresAndLabels(Operation *op, Value scores,
                                           Value labels, Value weights) {
  std::optional<int64_t> scoresRank = getRank(scores);
  std::optional<int64_t> labelsRank = getRank(labels);
  if (scoresRank && *scoresRank < 2)
    return emitNodeError(op) << "scores must have rank >= 2, got " << *scoresRank;
  if (scoresRank && labelsRank && *labelsRank != *scoresRank - 1)
    return emitNodeError(op) << "labels must have rank " << *scoresRank - 1
                             << " (one less than scores), got " << *labelsRank;
  if (!isNoValue(weights)) {
    if (failed(verifyRank(op, weights, 1, "weights")) ||
        failed(verifySameElementType(op, scores, weights, "scores and weights")))
      return failure();
  }
  return success();
}

/// Unifies labels with scores minus the class dim and weights with [C].
static LogicalResult unifyLossShapes(ShapeContext &context, Operation *op,
                                     Value scores, Value labels,
                                     Value weights) {
  Shape s = context.getShape(scores), l = context.getShape(labels);
  if (l.size() + 1 != s.size())
    return emitNodeError(op) << "labels must have rank " << s.size() - 1;
  for (size_t i = 0; i < l.size(); ++i) {
    Dim scoreDim = i == 0 ? s[0] : s[i + 1];
    if (failed(context.unify(l[i], scoreDim, op,
                             "labels do not match the batch dims of scores")))
      return failure();
  }
  if (!isNoValue(weights)) {
    Shape w = context.getShape(weights);
    if (failed(context.unify(w[0], s[1], op,
                             "weights must have one entry per class")))
      return failure();
  }
  return success();
}

static Shape lossShape(ShapeContext &context, Value labels,
                       StringRef reduction) {
  if (reduction == "none")
    return context.getShape(labels);
  return {};
}

LogicalResult SoftmaxCrossEntropyLossOp::verify() {
  if (failed(verifyReduction(*this, getReduction())))
    return failure();
  return verifyScoresAndLabels(*this, getScores(), getLabels(), getWeights());
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
  if (failed(verifyReduction(*this, getReduction())))
    return failure();
  if (!isNoValue(getBias()))
    return emitNodeError(*this) << "the bias input is not supported";
  return verifyScoresAndLabels(*this, getLogProb(), getLabel(), getWeight());
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
