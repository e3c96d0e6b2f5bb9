//===- SliceGrad.cpp - onnx.ms.SliceGrad ----------------------------------===//
//
// dX has the dims the 1-D shape tensor holds (see GatherGrad.cpp); dY has
// dX's rank.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult SliceGradOp::verify() {
  FailureOr<int64_t> rank = verifyShapeOperand(*this, getShape());
  if (failed(rank))
    return failure();
  if (failed(verifyRank(*this, getStarts(), 1, "starts")) ||
      failed(verifyRank(*this, getEnds(), 1, "ends")) ||
      (!isNoValue(getAxes()) && failed(verifyRank(*this, getAxes(), 1, "axes"))) ||
      (!isNoValue(getSteps()) &&
       failed(verifyRank(*this, getSteps(), 1, "steps"))))
    return failure();
  if (*rank >= 0 && failed(verifyRank(*this, getDY(), *rank, "dY")))
    return failure();
  return success();
}

LogicalResult SliceGradOp::inferShapes(ShapeContext &context) {
  context.setShape(getDX(), shapeOperandResultDims(context, *this, getShape()),
                   ShapeContext::getElementType(getDY()));
  return success();
}

} // namespace odt::onnx
