//===- Pow.cpp - onnx.Pow -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

// X and Y may differ in element type (opset 12+); Z has X's.
LogicalResult PowOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getX(), getY()}, getZ(),
                              ShapeContext::getElementType(getX()));
}

} // namespace odt::onnx
