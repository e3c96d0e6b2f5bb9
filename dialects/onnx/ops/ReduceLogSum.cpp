//===- ReduceLogSum.cpp - onnx.ReduceLogSum -------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceLogSumOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceLogSumOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceLogSumOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
