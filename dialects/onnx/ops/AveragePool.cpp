//===- AveragePool.cpp - onnx.AveragePool ---------------------------------===//

#include "dialects/onnx/ops/NNGeometry.h"
#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult AveragePoolOp::verify() {
  if (getCountIncludePad() != 0 && getCountIncludePad() != 1)
    return emitNodeError(*this) << "count_include_pad must be 0 or 1, got "
                                << getCountIncludePad();
  return verifyPool(*this, getX());
}

LogicalResult AveragePoolOp::inferShapes(ShapeContext &context) {
  FailureOr<Shape> y = inferPoolShape(context, *this, getX());
  if (failed(y))
    return failure();
  context.setShape(getY(), *y, ShapeContext::getElementType(getX()));
  return success();
}

} // namespace odt::onnx
