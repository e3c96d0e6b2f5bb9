//===- DivGrad.cpp - onnx.ms.DivGrad --------------------------------------===//
//
// dY has the broadcast shape of A and B; dA has A's shape and dB B's.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult DivGradOp::verify() {
  if (failed(verifySameElementType(*this, getDY(), getA(), "dY and A")) ||
      failed(verifySameElementType(*this, getA(), getB(), "A and B")))
    return failure();
  return success();
}

LogicalResult DivGradOp::inferShapes(ShapeContext &context) {
  FailureOr<Shape> broadcast = context.broadcast(
      context.getShape(getA()), context.getShape(getB()), *this);
  if (failed(broadcast))
    return failure();
  Shape dy = context.getShape(getDY());
  if (dy.size() != broadcast->size())
    return emitNodeError(*this) << "dY must have rank " << broadcast->size()
                                << " (A and B broadcast), got " << dy.size();
  for (size_t i = 0; i < dy.size(); ++i)
    if (failed(context.unify(dy[i], (*broadcast)[i], *this,
                             "dY must have the broadcast shape of A and B")))
      return failure();
  (void)inferSameShape(context, getA(), getDA());
  return inferSameShape(context, getB(), getDB());
}

} // namespace odt::onnx
