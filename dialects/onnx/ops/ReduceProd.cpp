//===- ReduceProd.cpp - onnx.ReduceProd -----------------------------------===//
//
// Axes, checks and shapes are shared by every Reduce* op (ReductionHelpers).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>> ReduceProdOp::getConstantAxes() {
  return getReduceOpAxes(*this);
}

LogicalResult ReduceProdOp::verify() { return verifyReduceOp(*this); }

LogicalResult ReduceProdOp::inferShapes(ShapeContext &context) {
  return inferReduceOpShapes(*this, context);
}

} // namespace odt::onnx
