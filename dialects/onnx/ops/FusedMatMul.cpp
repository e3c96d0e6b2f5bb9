//===- FusedMatMul.cpp - onnx.ms.FusedMatMul ------------------------------===//
//
// Y = alpha * op(A) @ op(B): op transposes the last two dims when transA /
// transB is set; the batch dims broadcast as in numpy.matmul. Both inputs
// have rank >= 2; transBatchA/B (ORT's batch-folding transposes, which its
// gradient builder does not emit) must be 0.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult FusedMatMulOp::verify() {
  if (failed(verifySameElementType(*this, getA(), getB(), "A and B")))
    return failure();
  for (auto [value, name] : {std::pair<Value, StringRef>(getA(), "A"),
                             std::pair<Value, StringRef>(getB(), "B")}) {
    std::optional<int64_t> rank = getRank(value);
    if (rank && *rank < 2)
      return emitNodeError(*this) << name << " must have rank >= 2, got "
                                  << *rank;
  }
  if (getTransBatchA() || getTransBatchB())
    return emitNodeError(*this) << "transBatchA and transBatchB are not "
                                   "supported";
  return success();
}

LogicalResult FusedMatMulOp::inferShapes(ShapeContext &context) {
  Shape a = context.getShape(getA()), b = context.getShape(getB());
  if (getTransA())
    std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (getTransB())
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  if (failed(context.unify(a.back(), b[b.size() - 2], *this,
                           "the inner dims of A and B must match")))
    return failure();
  FailureOr<Shape> batch =
      context.broadcast(ArrayRef<Dim>(a).drop_back(2),
                        ArrayRef<Dim>(b).drop_back(2), *this);
  if (failed(batch))
    return failure();
  Shape y = *batch;
  y.push_back(a[a.size() - 2]);
  y.push_back(b.back());
  context.setShape(getY(), y, ShapeContext::getElementType(getA()));
  return success();
}

} // namespace odt::onnx
