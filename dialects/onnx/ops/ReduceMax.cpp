//===- ReduceMax.cpp - onnx.ReduceMax -------------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceMaxOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceMaxOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceMaxOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
