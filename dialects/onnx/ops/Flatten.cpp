//===- Flatten.cpp - onnx.Flatten -----------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult FlattenOp::verify() {
  std::optional<int64_t> rank = getRank(getInput());
  int64_t axis = getAxis();
  if (rank && (axis < -*rank || axis > *rank))
    return emitNodeError(*this) << "axis " << axis << " is outside ["
                                << -*rank << ", " << *rank << "]";
  return success();
}

LogicalResult FlattenOp::inferShapes(ShapeContext &context) {
  Shape input = context.getShape(getInput());
  int64_t rank = input.size();
  int64_t axis = getAxis();
  if (axis < 0)
    axis += rank;
  ArrayRef<Dim> dims(input);
  std::optional<Dim> outer = context.product(dims.take_front(axis));
  std::optional<Dim> inner = context.product(dims.drop_front(axis));
  Shape result = {outer ? *outer : context.newResultSymbol(*this, 0),
                  inner ? *inner : context.newResultSymbol(*this, 1)};
  context.setShape(getOutput(), result,
                   ShapeContext::getElementType(getInput()));
  context.forwardValues(getInput(), getOutput());
  return success();
}

} // namespace odt::onnx
