//===- MaxPool.cpp - onnx.MaxPool -----------------------------------------===//

#include "dialects/onnx/ops/NNGeometry.h"
#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult MaxPoolOp::verify() {
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitNodeError(*this) << "storage_order must be 0 or 1, got "
                                << getStorageOrder();
  return verifyPool(*this, getX());
}

LogicalResult MaxPoolOp::inferShapes(ShapeContext &context) {
  FailureOr<Shape> y = inferPoolShape(context, *this, getX());
  if (failed(y))
    return failure();
  context.setShape(getY(), *y, ShapeContext::getElementType(getX()));
  context.setShape(getIndices(), *y, IntegerType::get(getContext(), 64));
  return success();
}

} // namespace odt::onnx
