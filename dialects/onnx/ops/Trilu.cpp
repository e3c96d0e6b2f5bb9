//===- Trilu.cpp - onnx.Trilu ---------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult TriluOp::verify() {
  std::optional<int64_t> rank = getRank(getInput());
  if (rank && *rank < 2)
    return emitNodeError(*this) << "input must have rank >= 2, got " << *rank;
  if (getUpper() != 0 && getUpper() != 1)
    return emitNodeError(*this) << "upper must be 0 or 1, got " << getUpper();
  if (!isNoValue(getK())) {
    auto type = dyn_cast<RankedTensorType>(getK().getType());
    if (type && type.hasStaticShape() && type.getNumElements() != 1)
      return emitNodeError(*this) << "k must be a scalar";
  }
  return success();
}

LogicalResult TriluOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getInput(), getOutput());
}

} // namespace odt::onnx
