//===- BatchNormInternal.cpp - training batch normalization and gradient --===//
//
// onnx.ms.BatchNormInternal and onnx.ms.BatchNormalizationGrad: X is
// [N, C, D1..Dk] (k >= 0); scale, bias and the statistics are [C].
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

static LogicalResult verifyChannels(Operation *op, Value x,
                                    ArrayRef<std::pair<Value, StringRef>> vectors) {
  std::optional<int64_t> rank = getRank(x);
  if (rank && *rank < 2)
    return emitNodeError(op) << "X must have rank >= 2 ([N, C, ...]), got "
                             << *rank;
  for (auto [value, name] : vectors)
    if (failed(verifyRank(op, value, 1, name)))
      return failure();
  return success();
}

static LogicalResult unifyChannels(ShapeContext &context, Operation *op,
                                   Value x, ArrayRef<Value> vectors) {
  Dim channels = context.getShape(x)[1];
  for (Value value : vectors)
    if (failed(context.unify(context.getShape(value)[0], channels, op,
                             "scale, bias and statistics must have one value "
                             "per channel")))
      return failure();
  return success();
}

LogicalResult BatchNormInternalOp::verify() {
  if (failed(verifySameElementType(*this, getX(), getScale(), "X and scale")) ||
      failed(verifySameElementType(*this, getScale(), getB(), "scale and B")) ||
      failed(verifySameElementType(*this, getInputMean(), getInputVar(),
                                   "input_mean and input_var")))
    return failure();
  return verifyChannels(*this, getX(),
                        {{getScale(), "scale"}, {getB(), "B"},
                         {getInputMean(), "input_mean"},
                         {getInputVar(), "input_var"}});
}

LogicalResult BatchNormInternalOp::inferShapes(ShapeContext &context) {
  if (failed(unifyChannels(context, *this, getX(),
                           {getScale(), getB(), getInputMean(), getInputVar()})))
    return failure();
  (void)inferSameShape(context, getX(), getY());
  for (Value result : {getRunningMean(), getSavedMean()})
    (void)inferSameShape(context, getInputMean(), result);
  for (Value result : {getRunningVar(), getSavedInvStd()})
    (void)inferSameShape(context, getInputVar(), result);
  return success();
}

LogicalResult BatchNormalizationGradOp::verify() {
  if (failed(verifySameElementType(*this, getDY(), getX(), "dY and X")) ||
      failed(verifySameElementType(*this, getMean(), getVariance(),
                                   "mean and variance")))
    return failure();
  return verifyChannels(*this, getX(),
                        {{getScale(), "scale"}, {getMean(), "mean"},
                         {getVariance(), "variance"}});
}

LogicalResult BatchNormalizationGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getDY(), getX(),
                         "dY and X must have the same shape")) ||
      failed(unifyChannels(context, *this, getX(),
                           {getScale(), getMean(), getVariance()})))
    return failure();
  (void)inferSameShape(context, getX(), getXGrad());
  (void)inferSameShape(context, getScale(), getScaleGrad());
  return inferSameShape(context, getScale(), getBiasGrad());
}

} // namespace odt::onnx
