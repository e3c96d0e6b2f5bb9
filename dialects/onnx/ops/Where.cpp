//===- Where.cpp - onnx.Where ---------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult WhereOp::verify() {
  return verifySameElementType(*this, getX(), getY(), "X and Y");
}

LogicalResult WhereOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getCondition(), getX(), getY()},
                              getOutput(), ShapeContext::getElementType(getX()));
}

} // namespace odt::onnx
