//===- ReduceL2.cpp - onnx.ReduceL2 ---------------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceL2Op::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceL2Op::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceL2Op::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
