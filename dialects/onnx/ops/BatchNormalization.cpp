//===- BatchNormalization.cpp - onnx.BatchNormalization -------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

LogicalResult BatchNormalizationOp::verify() {
  if (failed(verifyFlag(*this, getTrainingMode(), "training_mode")))
    return failure();
  if (std::optional<int64_t> rank = getRank(getX()); rank && *rank < 2)
    return emitNodeError(*this) << "X must have rank >= 2 ([N, C, ...]), got "
                                << *rank;
  if (failed(verifyRank(*this, getScale(), 1, "scale")) ||
      failed(verifyRank(*this, getB(), 1, "B")) ||
      failed(verifyRank(*this, getInputMean(), 1, "input_mean")) ||
      failed(verifyRank(*this, getInputVar(), 1, "input_var")) ||
      failed(verifySameElementType(*this, getScale(), getB(), "scale and B")) ||
      failed(verifySameElementType(*this, getInputMean(), getInputVar(),
                                   "input_mean and input_var")))
    return failure();
  return success();
}

LogicalResult BatchNormalizationOp::inferShapes(ShapeContext &context) {
  Shape x = context.getShape(getX());
  for (auto [value, what] :
       {std::pair<Value, StringRef>{getScale(), "scale"},
        {getB(), "B"},
        {getInputMean(), "input_mean"},
        {getInputVar(), "input_var"}}) {
    Shape s = context.getShape(value);
    if (failed(context.unify(s[0], x[1], *this,
                             (what + " must have one entry per channel")
                                 .str())))
      return failure();
  }
  Shape channels = {context.resolve(x[1])};
  Type statType = ShapeContext::getElementType(getInputMean());
  context.setShape(getY(), context.getShape(getX()),
                   ShapeContext::getElementType(getX()));
  context.setShape(getRunningMean(), channels, statType);
  context.setShape(getRunningVar(), channels, statType);
  return success();
}

} // namespace odt::onnx
