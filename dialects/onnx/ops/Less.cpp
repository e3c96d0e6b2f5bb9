//===- Less.cpp - onnx.Less -----------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult LessOp::verify() {
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult LessOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              IntegerType::get(getContext(), 1));
}

} // namespace odt::onnx
