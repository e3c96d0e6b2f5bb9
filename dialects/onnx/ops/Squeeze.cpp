//===- Squeeze.cpp - onnx.Squeeze -----------------------------------------===//
//
// Without axes every dim of static size 1 goes (a symbolic dim is assumed not
// to be 1, as in broadcasting); a symbolic dim named in axes must be 1.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult SqueezeOp::verify() {
  if (isNoValue(getAxes()))
    return success();
  if (failed(verifyRank(*this, getAxes(), 1, "axes")))
    return failure();
  DenseIntElementsAttr axes;
  std::optional<int64_t> rank = getRank(getData());
  if (rank && matchPattern(getAxes(), m_Constant(&axes))) {
    SmallVector<int64_t> values;
    for (const APInt &axis : axes.getValues<APInt>())
      values.push_back(axis.getSExtValue());
    if (!normalizeAxes(values, *rank))
      return emitNodeError(*this)
             << "axes must be unique and in [" << -*rank << ", " << *rank - 1
             << "]";
  }
  return success();
}

LogicalResult SqueezeOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  int64_t rank = data.size();
  SmallVector<int64_t> axes;
  if (isNoValue(getAxes())) {
    for (int64_t i = 0; i < rank; ++i)
      if (data[i].isStatic() && data[i].getSize() == 1)
        axes.push_back(i);
  } else {
    std::optional<SmallVector<int64_t>> values =
        context.getStaticValues(getAxes());
    if (!values)
      return emitNodeError(*this)
             << "axes must be known at compile time (they decide the rank)";
    std::optional<SmallVector<int64_t>> normalized =
        normalizeAxes(*values, rank);
    if (!normalized)
      return emitNodeError(*this)
             << "axes must be unique and in [" << -rank << ", " << rank - 1
             << "]";
    axes = *normalized;
  }
  Shape result;
  for (int64_t i = 0; i < rank; ++i) {
    if (!llvm::is_contained(axes, i)) {
      result.push_back(data[i]);
      continue;
    }
    if (data[i].isStatic() && data[i].getSize() != 1)
      return emitNodeError(*this) << "cannot squeeze dim " << i << " of size "
                                  << data[i].getSize();
    if (failed(context.unify(data[i], Dim::size(1), *this,
                             "a squeezed dim must be 1")))
      return failure();
  }
  context.setShape(getSqueezed(), result,
                   ShapeContext::getElementType(getData()));
  context.forwardValues(getData(), getSqueezed());
  return success();
}

} // namespace odt::onnx
