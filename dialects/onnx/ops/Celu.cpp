//===- Celu.cpp - onnx.Celu -----------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult CeluOp::verify() {
  if (getAlpha().convertToDouble() == 0.0)
    return emitNodeError(*this) << "alpha must not be 0 (Celu divides by it)";
  return success();
}

LogicalResult CeluOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
