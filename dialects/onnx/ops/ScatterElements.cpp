//===- ScatterElements.cpp - onnx.ScatterElements -------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ScatterElementsOp::verify() {
  std::optional<int64_t> rank = getRank(getData());
  for (Value other : {getIndices(), getUpdates()}) {
    std::optional<int64_t> otherRank = getRank(other);
    if (rank && otherRank && *rank != *otherRank)
      return emitNodeError(*this)
             << "data, indices and updates must have the same rank, got "
             << *rank << " and " << *otherRank;
  }
  if (rank && *rank < 1)
    return emitNodeError(*this) << "data must have rank >= 1";
  if (rank && !normalizeAxis(int64_t(getAxis()), *rank))
    return emitNodeError(*this) << "axis " << int64_t(getAxis()) << " is outside ["
                                << -*rank << ", " << *rank - 1 << "]";
  if (failed(verifySameElementType(*this, getData(), getUpdates(),
                                   "data and updates")))
    return failure();
  StringRef reduction = getReduction();
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return emitNodeError(*this)
           << "reduction must be none, add, mul, max or min, got '"
           << reduction << "'";
  if (reduction != "none" &&
      getElementTypeOrSelf(getData().getType()).isInteger(1))
    return emitNodeError(*this) << "reduction '" << reduction
                                << "' needs numbers, data is bool";
  return success();
}

LogicalResult ScatterElementsOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getIndices(), getUpdates(),
                         "indices and updates must have the same shape")))
    return failure();
  return inferSameShape(context, getData(), getOutput());
}

} // namespace odt::onnx
