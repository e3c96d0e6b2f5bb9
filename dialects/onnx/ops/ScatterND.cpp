//===- ScatterND.cpp - onnx.ScatterND -------------------------------------===//
//
// data [d...], indices [q..., k], updates [q..., d(k)...]; the output has
// data's shape.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ScatterNDOp::verify() {
  StringRef reduction = getReduction();
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return emitNodeError(*this) << "reduction must be none, add, mul, max or "
                                   "min, not '"
                                << reduction << "'";
  if (failed(verifySameElementType(*this, getData(), getUpdates(),
                                   "data and updates")))
    return failure();
  std::optional<int64_t> indicesRank = getRank(getIndices());
  if (indicesRank && *indicesRank < 1)
    return emitNodeError(*this) << "indices must have rank >= 1";
  return success();
}

LogicalResult ScatterNDOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  Shape indices = context.getShape(getIndices());
  Shape updates = context.getShape(getUpdates());
  Dim last = context.resolve(indices.back());
  if (!last.isStatic())
    return emitNodeError(*this)
           << "the last dim of indices (the index tuple size) must be static";
  int64_t k = last.getSize();
  if (k < 1 || k > static_cast<int64_t>(data.size()))
    return emitNodeError(*this)
           << "index tuples of " << k << " values do not fit data of rank "
           << data.size();
  size_t want = indices.size() - 1 + data.size() - k;
  if (updates.size() != want)
    return emitNodeError(*this) << "updates must have rank " << want
                                << " (indices' dims but the last, then data's "
                                   "dims after the index tuple), got "
                                << updates.size();
  for (size_t i = 0; i + 1 < indices.size(); ++i)
    if (failed(context.unify(updates[i], indices[i], *this,
                             "updates and indices")))
      return failure();
  for (size_t i = k; i < data.size(); ++i)
    if (failed(context.unify(updates[indices.size() - 1 + i - k], data[i],
                             *this, "updates and data's trailing dims")))
      return failure();
  context.setShape(getOutput(), data, ShapeContext::getElementType(getData()));
  return success();
}

} // namespace odt::onnx
