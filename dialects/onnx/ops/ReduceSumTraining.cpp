//===- ReduceSumTraining.cpp - onnx.ms.ReduceSumTraining ------------------===//
//
// ReduceSum (opset 13) with a required axes input. The axes must be known at
// compile time: a constant, or (as ORT's broadcast gradients produce them) a
// BroadcastGradientArgs result over known shapes.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceSumTrainingOp::getStaticAxes() {
  std::optional<int64_t> rank = getRank(getData());
  if (!rank)
    return failure();
  FailureOr<SmallVector<int64_t>> values = getStaticIntegers(getAxes());
  if (failed(values))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t axis : *values) {
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

LogicalResult ReduceSumTrainingOp::verify() {
  if (failed(verifyRank(*this, getAxes(), 1, "axes")))
    return failure();
  if (succeeded(getStaticIntegers(getAxes())) && failed(getStaticAxes()))
    return emitNodeError(*this)
           << "axes must be unique and within the rank of data";
  return success();
}

LogicalResult ReduceSumTrainingOp::inferShapes(ShapeContext &context) {
  FailureOr<SmallVector<int64_t>> axes = getStaticAxes();
  if (failed(axes))
    return emitNodeError(*this) << "axes must be known at compile time (a "
                                   "constant or BroadcastGradientArgs of "
                                   "known shapes)";
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
