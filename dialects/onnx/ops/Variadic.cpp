//===- Variadic.cpp - onnx.Max, Min, Sum, Mean ----------------------------===//
//
// Ops over one or more inputs of one element type, broadcast together.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {
namespace {

template <typename VariadicOp> LogicalResult verifyVariadic(VariadicOp op) {
  if (op.getData_0().empty())
    return emitNodeError(op) << "needs at least one input";
  return verifySameElementTypes(op, op.getData_0(), "all inputs");
}

template <typename VariadicOp>
LogicalResult inferVariadic(VariadicOp op, ShapeContext &context) {
  return inferBroadcastResult(context, op, op.getData_0(), op.getResult(),
                              ShapeContext::getElementType(op.getData_0()[0]));
}

} // namespace

LogicalResult MaxOp::verify() { return verifyVariadic(*this); }
LogicalResult MaxOp::inferShapes(ShapeContext &context) {
  return inferVariadic(*this, context);
}
LogicalResult MinOp::verify() { return verifyVariadic(*this); }
LogicalResult MinOp::inferShapes(ShapeContext &context) {
  return inferVariadic(*this, context);
}
LogicalResult SumOp::verify() { return verifyVariadic(*this); }
LogicalResult SumOp::inferShapes(ShapeContext &context) {
  return inferVariadic(*this, context);
}
LogicalResult MeanOp::verify() { return verifyVariadic(*this); }
LogicalResult MeanOp::inferShapes(ShapeContext &context) {
  return inferVariadic(*this, context);
}

} // namespace odt::onnx
