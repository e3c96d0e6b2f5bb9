//===- Selu.cpp - onnx.Selu -----------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult SeluOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
