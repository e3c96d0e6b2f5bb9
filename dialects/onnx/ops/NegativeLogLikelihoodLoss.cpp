//===- NegativeLogLikelihoodLoss.cpp - onnx.NegativeLogLikelihoodLoss -----===//
//
// input [N, C] or [N, C, d1, ...], target [N] or [N, d1, ...], optional
// per-class weight [C]; the checks are SoftmaxCrossEntropyLoss's.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

static const LossNames kNames = {"input", "target", "weight"};

LogicalResult NegativeLogLikelihoodLossOp::verify() {
  if (failed(verifyLossReduction(*this, getReduction())))
    return failure();
  return verifyLossOperands(*this, getInput(), getTarget(), getWeight(),
                            kNames);
}

LogicalResult
NegativeLogLikelihoodLossOp::inferShapes(ShapeContext &context) {
  if (failed(unifyLossShapes(context, *this, getInput(), getTarget(),
                             getWeight(), kNames)))
    return failure();
  context.setShape(getLoss(), lossShape(context, getTarget(), getReduction()),
                   ShapeContext::getElementType(getInput()));
  return success();
}

} // namespace odt::onnx
