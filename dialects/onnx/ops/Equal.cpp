//===- Equal.cpp - onnx.Equal ---------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult EqualOp::verify() {
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult EqualOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              IntegerType::get(getContext(), 1));
}

} // namespace odt::onnx
