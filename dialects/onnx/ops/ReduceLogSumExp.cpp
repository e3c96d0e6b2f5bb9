//===- ReduceLogSumExp.cpp - onnx.ReduceLogSumExp -------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceLogSumExpOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceLogSumExpOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceLogSumExpOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
