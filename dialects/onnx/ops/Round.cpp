//===- Round.cpp - onnx.Round ---------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult RoundOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
