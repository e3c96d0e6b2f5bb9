//===- TopK.cpp - onnx.TopK -----------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

/// K if it is a constant.
static std::optional<int64_t> getConstantK(Value k) {
  DenseIntElementsAttr values;
  if (!matchPattern(k, m_Constant(&values)) || values.getNumElements() != 1)
    return std::nullopt;
  return (*values.begin()).getSExtValue();
}

LogicalResult TopKOp::verify() {
  if (failed(verifyFlag(*this, getLargest(), "largest")) ||
      failed(verifyFlag(*this, getSorted(), "sorted")) ||
      failed(verifyAxis(*this, getX(), getAxis(), "X")))
    return failure();
  if (std::optional<int64_t> rank = getRank(getX()); rank && *rank == 0)
    return emitNodeError(*this) << "X must have rank >= 1";
  if (auto type = dyn_cast<RankedTensorType>(getK().getType());
      type && (type.getRank() != 1 || (!type.isDynamicDim(0) &&
                                       type.getDimSize(0) != 1)))
    return emitNodeError(*this) << "K must be a one-element 1-D tensor, got "
                                << type;
  if (std::optional<int64_t> k = getConstantK(getK()); k && *k < 0)
    return emitNodeError(*this) << "K must not be negative, got " << *k;
  return success();
}

LogicalResult TopKOp::inferShapes(ShapeContext &context) {
  Shape x = context.getShape(getX());
  int64_t axis = *normalizeAxis(getAxis(), x.size());
  Shape k = context.getShape(getK());
  if (failed(context.unify(k[0], Dim::size(1), *this,
                           "K must have one element")))
    return failure();
  Shape out = x;
  if (std::optional<int64_t> value = getConstantK(getK())) {
    Dim n = context.resolve(x[axis]);
    if (n.isStatic() && *value > n.getSize())
      return emitNodeError(*this) << "K (" << *value
                                  << ") exceeds the size of axis " << axis
                                  << " (" << n.getSize() << ")";
    out[axis] = Dim::size(*value);
  } else {
    // A computed K: the dim is known at run time only.
    out[axis] = context.newSymbol("topk_k");
  }
  context.setShape(getValues(), out, ShapeContext::getElementType(getX()));
  context.setShape(getIndices(), out, Builder(getContext()).getI64Type());
  return success();
}

} // namespace odt::onnx
