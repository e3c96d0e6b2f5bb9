//===- DropoutGrad.cpp - onnx.ms.DropoutGrad ------------------------------===//
//
// dx = ratio == 0 ? dy : (mask ? dy / (1 - ratio) : 0), ratio 0.5 when
// absent; training_mode is accepted and, as in ORT's kernel, not used.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

static LogicalResult verifyScalar(Operation *op, Value value, StringRef what) {
  if (isNoValue(value))
    return success();
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    if (type.getNumElements() != 1)
      return emitNodeError(op) << what << " must hold one element";
  return success();
}

LogicalResult DropoutGradOp::verify() {
  return success(succeeded(verifyScalar(*this, getRatio(), "ratio")) &&
                 succeeded(verifyScalar(*this, getTrainingMode(),
                                        "training_mode")));
}

LogicalResult DropoutGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getDy(), getMask(),
                         "dy and mask must have the same shape")))
    return failure();
  return inferSameShape(context, getDy(), getDx());
}

} // namespace odt::onnx
