//===- ReduceSum.cpp - onnx.ReduceSum -------------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceSumOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceSumOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceSumOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
