//===- ThresholdedRelu.cpp - onnx.ThresholdedRelu -------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ThresholdedReluOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
