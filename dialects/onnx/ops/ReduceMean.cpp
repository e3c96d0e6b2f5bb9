//===- ReduceMean.cpp - onnx.ReduceMean -----------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceMeanOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceMeanOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceMeanOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
