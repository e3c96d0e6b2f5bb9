//===- Add.cpp - onnx.Add -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult AddOp::verify() {
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult AddOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
