//===- ReduceMin.cpp - onnx.ReduceMin -------------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceMinOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceMinOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceMinOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
