//===- ContribGelu.cpp - onnx.ms.Gelu, BiasGelu, FastGelu -----------------===//
//
// The com.microsoft forward Gelu ops: Y has X's shape; a bias is 1-D and
// as long as X's last dim (ORT's kernels).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

/// A 1-D bias of the input's element type.
static LogicalResult verifyBias(Operation *op, Value input, Value bias) {
  if (failed(verifyRank(op, bias, 1, "the bias")) ||
      failed(verifySameElementType(op, input, bias, "the input and the bias")))
    return failure();
  std::optional<int64_t> rank = getRank(input);
  if (rank && *rank < 1)
    return emitNodeError(op) << "the input must have rank >= 1 with a bias";
  return success();
}

/// The bias is as long as the input's last dim; the result is shaped like
/// the input.
static LogicalResult inferWithBias(ShapeContext &context, Operation *op,
                                   Value input, Value bias, Value result) {
  if (bias && !isNoValue(bias)) {
    Shape in = context.getShape(input), b = context.getShape(bias);
    if (failed(context.unify(b[0], in.back(), op,
                             "the bias must be as long as the input's last "
                             "dim")))
      return failure();
  }
  return inferSameShape(context, input, result);
}

LogicalResult MSGeluOp::verify() { return success(); }

LogicalResult MSGeluOp::inferShapes(ShapeContext &context) {
  return inferSameShape(context, getX(), getY());
}

LogicalResult BiasGeluOp::verify() { return verifyBias(*this, getA(), getB()); }

LogicalResult BiasGeluOp::inferShapes(ShapeContext &context) {
  return inferWithBias(context, *this, getA(), getB(), getC());
}

LogicalResult FastGeluOp::verify() {
  if (isNoValue(getBias()))
    return success();
  return verifyBias(*this, getX(), getBias());
}

LogicalResult FastGeluOp::inferShapes(ShapeContext &context) {
  return inferWithBias(context, *this, getX(), getBias(), getY());
}

} // namespace odt::onnx
