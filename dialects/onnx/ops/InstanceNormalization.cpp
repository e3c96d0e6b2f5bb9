//===- InstanceNormalization.cpp - onnx.InstanceNormalization -------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult InstanceNormalizationOp::verify() {
  std::optional<int64_t> rank = getRank(getInput());
  if (rank && *rank < 3)
    return emitNodeError(*this)
           << "input must have rank >= 3 ([N, C, spatial...]), got " << *rank;
  if (failed(verifyRank(*this, getScale(), 1, "scale")) ||
      failed(verifyRank(*this, getB(), 1, "B")))
    return failure();
  return verifySameElementType(*this, getInput(), getScale(),
                               "input and scale");
}

LogicalResult InstanceNormalizationOp::inferShapes(ShapeContext &context) {
  Shape shape = context.getShape(getInput());
  if (failed(context.unify(context.getShape(getScale())[0], shape[1], *this,
                           "scale's size and the channels")) ||
      failed(context.unify(context.getShape(getB())[0], shape[1], *this,
                           "B's size and the channels")))
    return failure();
  context.setShape(getOutput(), shape,
                   ShapeContext::getElementType(getInput()));
  return success();
}

} // namespace odt::onnx
