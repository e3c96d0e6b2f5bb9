//===- GroupNormalization.cpp - onnx.GroupNormalization -------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GroupNormalizationOp::verify() {
  std::optional<int64_t> rank = getRank(getX());
  if (rank && *rank < 2)
    return emitNodeError(*this)
           << "X must have rank >= 2 ([N, C, ...]), got " << *rank;
  if (getNumGroups() < 1)
    return emitNodeError(*this)
           << "num_groups must be positive, not " << getNumGroups();
  if (failed(verifyRank(*this, getScale(), 1, "scale")) ||
      failed(verifyRank(*this, getBias(), 1, "bias")))
    return failure();
  return verifySameElementType(*this, getX(), getScale(), "X and scale");
}

LogicalResult GroupNormalizationOp::inferShapes(ShapeContext &context) {
  Shape shape = context.getShape(getX());
  int64_t groups = getNumGroups();
  Dim channels = context.resolve(shape[1]);
  if (channels.isStatic() && channels.getSize() % groups != 0)
    return emitNodeError(*this)
           << "num_groups " << groups << " does not divide the "
           << channels.getSize() << " channels";
  // scale and bias: one value per channel (opset 21) or per group (18).
  for (auto [value, what] : {std::make_pair(getScale(), "scale"),
                             std::make_pair(getBias(), "bias")}) {
    Dim size = context.resolve(context.getShape(value)[0]);
    if (size.isStatic() && channels.isStatic() &&
        size.getSize() != channels.getSize() && size.getSize() != groups)
      return emitNodeError(*this)
             << what << " has " << size.getSize()
             << " values: it needs one per channel (" << channels.getSize()
             << ") or one per group (" << groups << ")";
  }
  context.setShape(getY(), shape, ShapeContext::getElementType(getX()));
  return success();
}

} // namespace odt::onnx
