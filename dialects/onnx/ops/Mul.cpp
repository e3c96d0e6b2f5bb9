//===- Mul.cpp - onnx.Mul -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult MulOp::verify() {
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult MulOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
