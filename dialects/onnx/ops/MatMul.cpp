//===- MatMul.cpp - onnx.MatMul -------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult MatMulOp::verify() {
  for (auto [value, name] : {std::pair{getA(), "A"}, std::pair{getB(), "B"}})
    if (std::optional<int64_t> rank = getRank(value); rank && *rank < 1)
      return emitNodeError(*this) << name << " must have rank >= 1, got 0";
  return verifySameElementType(*this, getA(), getB(), "A and B");
}

LogicalResult MatMulOp::inferShapes(ShapeContext &context) {
  Shape a = context.getShape(getA()), b = context.getShape(getB());
  bool vectorA = a.size() == 1, vectorB = b.size() == 1;
  // numpy.matmul: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; the
  // promoted dims are dropped from the result.
  if (vectorA)
    a.insert(a.begin(), Dim::size(1));
  if (vectorB)
    b.push_back(Dim::size(1));
  if (failed(context.unify(a[a.size() - 1], b[b.size() - 2], *this,
                           "inner dimensions of A and B differ")))
    return failure();
  FailureOr<Shape> batch =
      context.broadcast(ArrayRef<Dim>(a).drop_back(2),
                        ArrayRef<Dim>(b).drop_back(2), *this);
  if (failed(batch))
    return failure();
  Shape y = *batch;
  if (!vectorA)
    y.push_back(a[a.size() - 2]);
  if (!vectorB)
    y.push_back(b.back());
  context.setShape(getY(), context.resolve(y),
                   ShapeContext::getElementType(getA()));
  return success();
}

} // namespace odt::onnx
