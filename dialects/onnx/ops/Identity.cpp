//===- Identity.cpp - onnx.Identity ---------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult IdentityOp::inferShapes(ShapeContext &context) {
  if (failed(inferSameShape(context, getInput(), getOutput())))
    return failure();
  context.forwardValues(getInput(), getOutput());
  return success();
}

} // namespace odt::onnx
