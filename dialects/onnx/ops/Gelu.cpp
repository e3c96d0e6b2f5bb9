//===- Gelu.cpp - onnx.Gelu -----------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitNodeError(*this) << "approximate must be \"none\" or \"tanh\", "
                                   "got \""
                                << getApproximate() << "\"";
  return success();
}

LogicalResult GeluOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
