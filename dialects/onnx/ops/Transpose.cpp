//===- Transpose.cpp - onnx.Transpose -------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

SmallVector<int64_t> TransposeOp::getPermutation() {
  std::optional<int64_t> rank = getRank(getData());
  if (auto perm = getPermAttr())
    return SmallVector<int64_t>(perm.asArrayRef());
  SmallVector<int64_t> reversed;
  for (int64_t i = rank.value_or(0) - 1; i >= 0; --i)
    reversed.push_back(i);
  return reversed;
}

LogicalResult TransposeOp::verify() {
  std::optional<int64_t> rank = getRank(getData());
  auto perm = getPermAttr();
  if (!perm || !rank)
    return success();
  if (static_cast<int64_t>(perm.size()) != *rank)
    return emitNodeError(*this) << "perm has " << perm.size()
                                << " entries, data has rank " << *rank;
  SmallVector<bool> seen(*rank, false);
  for (int64_t axis : perm.asArrayRef()) {
    if (axis < 0 || axis >= *rank || seen[axis])
      return emitNodeError(*this)
             << "perm must be a permutation of [0, " << *rank << "), got "
             << perm;
    seen[axis] = true;
  }
  return success();
}

LogicalResult TransposeOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  Shape result;
  for (int64_t axis : getPermutation())
    result.push_back(data[axis]);
  context.setShape(getTransposed(), result,
                   ShapeContext::getElementType(getData()));
  if (data.size() <= 1) {
    context.forwardValues(getData(), getTransposed());
    return success();
  }
  // A small static tensor of known values (TorchScript's pads for a
  // reflect Pad: [[begins], [ends]] reversed and transposed) keeps them,
  // permuted.
  SmallVector<int64_t> permutation = getPermutation();
  gatherKnownValues(context, getData(), context.toStaticDims(data),
                    getTransposed(), context.toStaticDims(result),
                    [&](ArrayRef<int64_t> at, SmallVectorImpl<int64_t> &from) {
                      from.assign(at.size(), 0);
                      for (auto [d, axis] : llvm::enumerate(permutation))
                        from[axis] = at[d];
                    });
  return success();
}

} // namespace odt::onnx
