//===- Expand.cpp - onnx.Expand -------------------------------------------===//
//
// Broadcasts the input and the target shape both ways. A target dim not known
// at compile time is a fresh symbol, which broadcasting ties to the input's
// dim unless that is 1 (a symbolic target is assumed equal to a non-1 input
// dim, or 1).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ExpandOp::verify() {
  return verifyRank(*this, getShape(), 1, "shape");
}

LogicalResult ExpandOp::inferShapes(ShapeContext &context) {
  Shape input = context.getShape(getInput());
  Dim length = context.getShape(getShape())[0];
  if (!length.isStatic())
    return emitNodeError(*this)
           << "shape must have a length known at compile time (the result's "
              "rank)";
  Values target = context.getPartialValues(getShape())
                      .value_or(Values(length.getSize(), std::nullopt));
  int64_t rank = std::max<int64_t>(input.size(), target.size());
  Shape targetShape;
  for (auto [i, value] : llvm::enumerate(target)) {
    if (value && value->isStatic() && value->getSize() < 0)
      return emitNodeError(*this) << "shape[" << i << "] is "
                                  << value->getSize() << "; dims are >= 0";
    // A target dim the input matches, or 1: the input's dim, else unknown.
    targetShape.push_back(
        value && value->getCoefficient() >= 0
            ? *value
            : context.newResultSymbol(*this, rank - target.size() + i));
  }
  FailureOr<Shape> result = context.broadcast(input, targetShape, *this);
  if (failed(result))
    return failure();
  context.setShape(getOutput(), *result,
                   ShapeContext::getElementType(getInput()));
  return success();
}

} // namespace odt::onnx
