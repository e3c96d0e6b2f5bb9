//===- Shape.cpp - onnx.Shape ---------------------------------------------===//
//
// The result's values are the input's (symbolic) dims: Shape(x) of x:[N, 784]
// holds [N, 784], so shape computations downstream resolve at compile time.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt::onnx {

std::pair<int64_t, int64_t> ShapeOp::getDimRange() {
  int64_t rank = getRank(getData()).value_or(0);
  auto clampAxis = [&](int64_t axis) {
    if (axis < 0)
      axis += rank;
    return std::clamp<int64_t>(axis, 0, rank);
  };
  int64_t start = clampAxis(getStart());
  int64_t end = getEnd() ? clampAxis(*getEnd()) : rank;
  return {start, std::max(start, end)};
}

LogicalResult ShapeOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  auto [start, end] = getDimRange();
  Builder builder(getContext());
  context.setShape(getShape(), {Dim::size(end - start)},
                   builder.getI64Type());
  context.setValues(getShape(),
                    ArrayRef<Dim>(data).slice(start, end - start));
  return success();
}

LogicalResult SizeOp::inferShapes(ShapeContext &context) {
  Builder builder(getContext());
  context.setShape(getSize(), {}, builder.getI64Type());
  if (std::optional<Dim> count = context.product(context.getShape(getData())))
    context.setValues(getSize(), ArrayRef<Dim>{*count});
  return success();
}

} // namespace odt::onnx
