//===- GatherGrad.cpp - onnx.ms.GatherGrad, GatherElementsGrad ------------===//
//
// Both scatter-add dY into zeros of the forward input's shape, which they
// read as a 1-D shape tensor: its dims are known at compile time when it is
// a constant or onnx.Shape of a value, else they are fresh symbols (read
// from the tensor at run time).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GatherGradOp::verify() {
  FailureOr<int64_t> rank = verifyShapeOperand(*this, getShape());
  if (failed(rank))
    return failure();
  if (*rank == 0)
    return emitNodeError(*this) << "the gathered tensor must have rank >= 1";
  if (*rank > 0 && failed(normalizeAxis(*this, getAxis(), *rank, "axis")))
    return failure();
  std::optional<int64_t> indices = getRank(getIndices());
  std::optional<int64_t> dy = getRank(getDY());
  if (*rank > 0 && indices && dy && *dy != *rank - 1 + *indices)
    return emitNodeError(*this) << "dY must have rank " << *rank - 1 + *indices
                                << " (data rank - 1 + indices rank), got " << *dy;
  return success();
}

LogicalResult GatherGradOp::inferShapes(ShapeContext &context) {
  Shape dX = shapeOperandResultDims(context, *this, getShape());
  int64_t rank = dX.size();
  int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
  Shape expected(dX.begin(), dX.begin() + axis);
  Shape indices = context.getShape(getIndices());
  expected.append(indices.begin(), indices.end());
  expected.append(dX.begin() + axis + 1, dX.end());
  Shape dy = context.getShape(getDY());
  for (size_t i = 0; i < dy.size(); ++i)
    if (failed(context.unify(dy[i], expected[i], *this,
                             "dY must have Gather's output shape")))
      return failure();
  context.setShape(getDX(), dX, ShapeContext::getElementType(getDY()));
  return success();
}

LogicalResult GatherElementsGradOp::verify() {
  FailureOr<int64_t> rank = verifyShapeOperand(*this, getShape());
  if (failed(rank))
    return failure();
  if (*rank == 0)
    return emitNodeError(*this) << "the gathered tensor must have rank >= 1";
  if (*rank > 0 && (failed(normalizeAxis(*this, getAxis(), *rank, "axis")) ||
                    failed(verifyRank(*this, getIndices(), *rank, "indices")) ||
                    failed(verifyRank(*this, getDY(), *rank, "dY"))))
    return failure();
  return success();
}

LogicalResult GatherElementsGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getDY(), getIndices(),
                         "dY and indices must have the same shape")))
    return failure();
  context.setShape(getDX(), shapeOperandResultDims(context, *this, getShape()),
                   ShapeContext::getElementType(getDY()));
  return success();
}

} // namespace odt::onnx
