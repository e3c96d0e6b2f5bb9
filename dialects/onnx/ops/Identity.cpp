//===- Identity.cpp - onnx.Identity ---------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult IdentityOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getInput(), getOutput());
}

} // namespace odt::onnx
