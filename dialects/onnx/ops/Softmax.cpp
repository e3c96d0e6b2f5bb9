//===- Softmax.cpp - onnx.Softmax -----------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getInput(), getAxis(), "input");
}

LogicalResult SoftmaxOp::inferShapes(ShapeContext &context) {
  if (context.getShape(getInput()).empty())
    return emitNodeError(*this) << "input must have rank >= 1";
  return inferSameShape(context, getInput(), getOutput());
}

} // namespace odt::onnx
