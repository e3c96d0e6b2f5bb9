//===- Max.cpp - onnx.Max -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult MaxOp::verify() {
  if (getData_0().empty())
    return emitNodeError(*this) << "needs at least one input";
  return verifySameElementTypes(*this, getData_0(), "all inputs");
}

LogicalResult MaxOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, getData_0(), getMax(),
                              ShapeContext::getElementType(getData_0()[0]));
}

} // namespace odt::onnx
