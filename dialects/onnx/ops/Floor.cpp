//===- Floor.cpp - onnx.Floor ---------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult FloorOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
