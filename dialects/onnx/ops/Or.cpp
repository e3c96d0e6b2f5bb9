//===- Or.cpp - onnx.Or ---------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult OrOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
