//===- Div.cpp - onnx.Div -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult DivOp::verify() {
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult DivOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
