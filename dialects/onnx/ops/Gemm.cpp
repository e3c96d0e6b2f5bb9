//===- Gemm.cpp - onnx.Gemm -----------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GemmOp::verify() {
  if (failed(verifyRank(*this, getA(), 2, "A")) ||
      failed(verifyRank(*this, getB(), 2, "B")) ||
      failed(verifySameElementType(*this, getA(), getB(), "A and B")))
    return failure();
  if (!isNoValue(getC())) {
    if (failed(verifySameElementType(*this, getA(), getC(), "A and C")))
      return failure();
    if (std::optional<int64_t> rank = getRank(getC()); rank && *rank > 2)
      return emitNodeError(*this) << "C must have rank <= 2, got " << *rank;
  }
  if ((getTransA() != 0 && getTransA() != 1) ||
      (getTransB() != 0 && getTransB() != 1))
    return emitNodeError(*this) << "transA and transB must be 0 or 1";
  return success();
}

LogicalResult GemmOp::inferShapes(ShapeContext &context) {
  Shape a = context.getShape(getA()), b = context.getShape(getB());
  Dim m = getTransA() ? a[1] : a[0];
  Dim kA = getTransA() ? a[0] : a[1];
  Dim kB = getTransB() ? b[1] : b[0];
  Dim n = getTransB() ? b[0] : b[1];
  if (failed(context.unify(kA, kB, *this,
                           "inner dimensions of A and B differ")))
    return failure();
  Shape y = {context.resolve(m), context.resolve(n)};
  if (!isNoValue(getC())) {
    // C broadcasts unidirectionally to [M, N].
    Shape c = context.getShape(getC());
    for (size_t i = 0; i < c.size(); ++i) {
      Dim target = y[y.size() - c.size() + i];
      if (c[i].isStatic() && c[i].getSize() == 1)
        continue;
      if (failed(context.unify(c[i], target, *this,
                               "C cannot broadcast to [M, N]")))
        return failure();
    }
  }
  context.setShape(getY(), y, ShapeContext::getElementType(getA()));
  return success();
}

} // namespace odt::onnx
