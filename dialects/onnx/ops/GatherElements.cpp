//===- GatherElements.cpp - onnx.GatherElements ---------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GatherElementsOp::verify() {
  std::optional<int64_t> rank = getRank(getData());
  std::optional<int64_t> indicesRank = getRank(getIndices());
  if (rank && indicesRank && *rank != *indicesRank)
    return emitNodeError(*this) << "data and indices must have the same rank, "
                                << "got " << *rank << " and " << *indicesRank;
  if (rank && *rank < 1)
    return emitNodeError(*this) << "data must have rank >= 1";
  if (rank && !normalizeAxis(int64_t(getAxis()), *rank))
    return emitNodeError(*this) << "axis " << int64_t(getAxis()) << " is outside ["
                                << -*rank << ", " << *rank - 1 << "]";
  return success();
}

LogicalResult GatherElementsOp::inferShapes(ShapeContext &context) {
  context.setShape(getOutput(), context.getShape(getIndices()),
                   ShapeContext::getElementType(getData()));
  return success();
}

} // namespace odt::onnx
