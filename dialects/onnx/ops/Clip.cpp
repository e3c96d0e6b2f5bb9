//===- Clip.cpp - onnx.Clip -----------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ClipOp::verify() {
  if (failed(verifySameElementTypes(*this, {getInput(), getMin(), getMax()},
                                    "input, min and max")) ||
      failed(verifyScalarOperand(*this, getMin(), "min")) ||
      failed(verifyScalarOperand(*this, getMax(), "max")))
    return failure();
  return success();
}

LogicalResult ClipOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getInput(), getOutput());
}

} // namespace odt::onnx
