//===- ReduceL1.cpp - onnx.ReduceL1 ---------------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceL1Op::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceL1Op::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceL1Op::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
