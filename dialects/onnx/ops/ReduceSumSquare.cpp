//===- ReduceSumSquare.cpp - onnx.ReduceSumSquare -------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceSumSquareOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceSumSquareOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceSumSquareOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
