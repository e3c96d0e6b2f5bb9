//===- GatherND.cpp - onnx.GatherND ---------------------------------------===//
//
// data [b..., d...] with batch_dims leading b dims, indices [b..., q..., k]:
// output [b..., q..., d(batch_dims + k)...].
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GatherNDOp::verify() {
  std::optional<int64_t> rank = getRank(getData());
  std::optional<int64_t> indicesRank = getRank(getIndices());
  int64_t batchDims = getBatchDims();
  if (batchDims < 0)
    return emitNodeError(*this) << "batch_dims must be >= 0";
  if (rank && *rank < 1)
    return emitNodeError(*this) << "data must have rank >= 1";
  if (indicesRank && *indicesRank < 1)
    return emitNodeError(*this) << "indices must have rank >= 1";
  if (rank && indicesRank && (batchDims >= std::min(*rank, *indicesRank)))
    return emitNodeError(*this)
           << "batch_dims " << batchDims
           << " must be less than the ranks of data and indices";
  return success();
}

LogicalResult GatherNDOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  Shape indices = context.getShape(getIndices());
  int64_t batchDims = getBatchDims();
  Dim last = context.resolve(indices.back());
  if (!last.isStatic())
    return emitNodeError(*this)
           << "the last dim of indices (the index tuple size) must be static";
  int64_t k = last.getSize();
  if (k < 1 || batchDims + k > static_cast<int64_t>(data.size()))
    return emitNodeError(*this)
           << "index tuples of " << k << " values do not fit data of rank "
           << data.size() << " after " << batchDims << " batch dims";
  for (int64_t i = 0; i < batchDims; ++i)
    if (failed(context.unify(data[i], indices[i], *this,
                             "the batch dims of data and indices")))
      return failure();
  Shape result(indices.begin(), indices.end() - 1);
  result.append(data.begin() + batchDims + k, data.end());
  context.setShape(getOutput(), context.resolve(result),
                   ShapeContext::getElementType(getData()));
  return success();
}

} // namespace odt::onnx
