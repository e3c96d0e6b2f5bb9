//===- Sub.cpp - onnx.Sub -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult SubOp::verify() {
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult SubOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
