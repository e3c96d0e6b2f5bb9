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
    return emitNodeError(*this)
           << "perm has " << perm.size() << " entries, data has rank " << *rank;
  SmallVector<bool> seen(*rank, false);
  for (int64_t axis : perm.asArrayRef()) {
    if (axis < 0 || axis >= *rank || seen[axis])
      return emitNodeError(*this) << "perm must be a permutation of [0, "
                                  << *rank << "), got " << perm;
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
  std::optional<Values> input = context.getPartialValues(getData());
  if (!input)
    return success();
  SmallVector<int64_t> inDims = context.toStaticDims(data);
  SmallVector<int64_t> outDims = context.toStaticDims(result);
  if (llvm::is_contained(inDims, ShapedType::kDynamic))
    return success();
  SmallVector<int64_t> inStrides(inDims.size(), 1);
  for (int64_t d = static_cast<int64_t>(inDims.size()) - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inDims[d + 1];
  SmallVector<int64_t> permutation = getPermutation();
  Values values;
  int64_t count = input->size();
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index, offset = 0;
    for (int64_t d = static_cast<int64_t>(outDims.size()) - 1; d >= 0; --d) {
      offset += (rest % outDims[d]) * inStrides[permutation[d]];
      rest /= outDims[d];
    }
    values.push_back((*input)[offset]);
  }
  context.setValues(getTransposed(), values);
  return success();
}

} // namespace odt::onnx
