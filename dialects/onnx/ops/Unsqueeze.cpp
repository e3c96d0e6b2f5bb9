//===- Unsqueeze.cpp - onnx.Unsqueeze -------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult UnsqueezeOp::verify() {
  if (failed(verifyRank(*this, getAxes(), 1, "axes")))
    return failure();
  DenseIntElementsAttr axes;
  std::optional<int64_t> rank = getRank(getData());
  if (rank && matchPattern(getAxes(), m_Constant(&axes))) {
    SmallVector<int64_t> values;
    for (const APInt &axis : axes.getValues<APInt>())
      values.push_back(axis.getSExtValue());
    int64_t outRank = *rank + values.size();
    if (!normalizeAxes(values, outRank))
      return emitNodeError(*this)
             << "axes must be unique and in [" << -outRank << ", "
             << outRank - 1 << "]";
  }
  return success();
}

LogicalResult UnsqueezeOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  std::optional<SmallVector<int64_t>> values =
      context.getStaticValues(getAxes());
  if (!values)
    return emitNodeError(*this)
           << "axes must be known at compile time (they decide the rank)";
  int64_t rank = data.size() + values->size();
  std::optional<SmallVector<int64_t>> axes = normalizeAxes(*values, rank);
  if (!axes)
    return emitNodeError(*this) << "axes must be unique and in [" << -rank
                                << ", " << rank - 1 << "]";
  Shape result;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    result.push_back(llvm::is_contained(*axes, i) ? Dim::size(1)
                                                  : data[next++]);
  context.setShape(getExpanded(), result,
                   ShapeContext::getElementType(getData()));
  context.forwardValues(getData(), getExpanded());
  return success();
}

} // namespace odt::onnx
