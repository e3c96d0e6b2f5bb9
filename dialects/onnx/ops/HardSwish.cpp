//===- HardSwish.cpp - onnx.HardSwish -------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult HardSwishOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
