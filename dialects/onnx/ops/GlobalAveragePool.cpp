//===- GlobalAveragePool.cpp - onnx.GlobalAveragePool ---------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GlobalAveragePoolOp::verify() {
  if (std::optional<int64_t> rank = getRank(getX()); rank && *rank < 3)
    return emitNodeError(*this) << "X must have rank >= 3 (N, C and at least "
                                   "one spatial dim), got rank "
                                << *rank;
  return success();
}

LogicalResult GlobalAveragePoolOp::inferShapes(ShapeContext &context) {
  Shape y = context.getShape(getX());
  for (size_t i = 2; i < y.size(); ++i)
    y[i] = Dim::size(1);
  context.setShape(getY(), y, ShapeContext::getElementType(getX()));
  return success();
}

} // namespace odt::onnx
