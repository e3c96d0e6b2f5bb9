//===- InPlaceAccumulator.cpp - onnx.ms.InPlaceAccumulator, ZeroGradient --===//
//
// ORT's in-place gradient buffer updates. The results have the buffer's
// shape; the training-program assembly ties them to the buffer (a graph
// input) they overwrite.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult InPlaceAccumulatorOp::verify() {
  if (failed(verifySameElementType(*this, getOldSum(), getValue(),
                                   "old_sum and value")))
    return failure();
  if (!isNoValue(getUpdateSignal()))
    if (auto type = dyn_cast<RankedTensorType>(getUpdateSignal().getType()))
      if (type.hasStaticShape() && type.getNumElements() != 1)
        return emitNodeError(*this) << "update_signal must hold one element";
  return success();
}

LogicalResult InPlaceAccumulatorOp::inferShapes(ShapeContext &context) {
  // value broadcasts to old_sum (ORT adds them as Add does).
  Shape sum = context.getShape(getOldSum());
  FailureOr<Shape> broadcast =
      context.broadcast(sum, context.getShape(getValue()), *this);
  if (failed(broadcast))
    return failure();
  if (broadcast->size() != sum.size())
    return emitNodeError(*this) << "value must broadcast to old_sum's shape";
  for (size_t i = 0; i < sum.size(); ++i)
    if (failed(context.unify((*broadcast)[i], sum[i], *this,
                             "value must broadcast to old_sum's shape")))
      return failure();
  return inferSameShape(context, getOldSum(), getNewSum());
}

LogicalResult ZeroGradientOp::verify() { return success(); }

LogicalResult ZeroGradientOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getOldGradient(), getZeroGradient());
}

} // namespace odt::onnx
