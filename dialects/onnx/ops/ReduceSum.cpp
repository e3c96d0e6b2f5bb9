//===- ReduceSum.cpp - onnx.ReduceSum -------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceSumOp::getConstantAxes() {
  std::optional<int64_t> rank = getRank(getData());
  if (!rank)
    return failure();
  SmallVector<int64_t> axes;
  if (isNoValue(getAxes())) {
    if (getNoopWithEmptyAxes())
      return axes;
    for (int64_t i = 0; i < *rank; ++i)
      axes.push_back(i);
    return axes;
  }
  DenseIntElementsAttr values;
  if (!matchPattern(getAxes(), m_Constant(&values)))
    return failure();
  for (APInt value : values) {
    int64_t axis = value.getSExtValue();
    if (axis < -*rank || axis >= *rank)
      return failure();
    axes.push_back(axis < 0 ? axis + *rank : axis);
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return failure();
  if (axes.empty() && !getNoopWithEmptyAxes())
    for (int64_t i = 0; i < *rank; ++i)
      axes.push_back(i);
  return axes;
}

LogicalResult ReduceSumOp::verify() {
  if (!isNoValue(getAxes())) {
    if (failed(verifyRank(*this, getAxes(), 1, "axes")))
      return failure();
    DenseIntElementsAttr values;
    if (matchPattern(getAxes(), m_Constant(&values)) &&
        failed(getConstantAxes()))
      return emitNodeError(*this)
             << "axes must be unique and within the rank of data";
  }
  return success();
}

LogicalResult ReduceSumOp::inferShapes(ShapeContext &context) {
  FailureOr<SmallVector<int64_t>> axes = getConstantAxes();
  if (failed(axes))
    return emitNodeError(*this)
           << "axes must be a constant (computed axes are not supported)";
  Shape data = context.getShape(getData());
  Shape reduced;
  for (auto [index, dim] : llvm::enumerate(data)) {
    if (!llvm::is_contained(*axes, int64_t(index)))
      reduced.push_back(dim);
    else if (getKeepdims())
      reduced.push_back(Dim::size(1));
  }
  context.setShape(getReduced(), reduced,
                   ShapeContext::getElementType(getData()));
  return success();
}

} // namespace odt::onnx
