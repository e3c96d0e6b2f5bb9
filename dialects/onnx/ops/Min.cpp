//===- Min.cpp - onnx.Min -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult MinOp::verify() {
  if (getData_0().empty())
    return emitNodeError(*this) << "needs at least one input";
  return verifySameElementTypes(*this, getData_0(), "all inputs");
}

LogicalResult MinOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, getData_0(), getMin(),
                              ShapeContext::getElementType(getData_0()[0]));
}

} // namespace odt::onnx
