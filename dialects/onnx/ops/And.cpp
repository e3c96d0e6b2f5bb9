//===- And.cpp - onnx.And -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult AndOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
