//===- ConvGrad.cpp - onnx.ms.ConvGrad ------------------------------------===//
//
// dY [N, M, o1..on], X [N, C, i1..in], W [M, C/group, k1..kn]: dX has X's
// shape, dW W's and dB is [M]. The window attributes are Conv's.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ConvGradOp::verify() {
  if (failed(verifySameElementType(*this, getDY(), getX(), "dY and X")) ||
      failed(verifySameElementType(*this, getX(), getW(), "X and W")))
    return failure();
  std::optional<int64_t> rank = getRank(getX());
  if (rank && *rank < 3)
    return emitNodeError(*this) << "X must have rank >= 3, got " << *rank;
  if (rank && (failed(verifyRank(*this, getW(), *rank, "W")) ||
               failed(verifyRank(*this, getDY(), *rank, "dY"))))
    return failure();
  if (getGroup() < 1)
    return emitNodeError(*this) << "group must be positive";
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  if (w && w.getRank() >= 3) {
    for (int64_t i = 2; i < w.getRank(); ++i)
      if (w.isDynamicDim(i))
        return emitNodeError(*this) << "W's spatial dims must be static";
    ArrayRef<int64_t> kernel = w.getShape().drop_front(2);
    if (auto attr = getKernelShapeAttr())
      if (attr.asArrayRef() != kernel)
        return emitNodeError(*this) << "kernel_shape differs from W's dims";
    if (!w.isDynamicDim(0) && w.getDimSize(0) % getGroup() != 0)
      return emitNodeError(*this) << "W's M must be a multiple of group";
  }
  return success();
}

LogicalResult ConvGradOp::inferShapes(ShapeContext &context) {
  Shape dy = context.getShape(getDY()), x = context.getShape(getX()),
        w = context.getShape(getW());
  int64_t group = getGroup();
  if (failed(context.unify(dy[0], x[0], *this, "dY and X must have one batch")) ||
      failed(context.unify(dy[1], w[0], *this,
                           "dY must have one channel per filter of W")))
    return failure();
  Dim channels = x[1], perGroup = w[1];
  if (channels.isStatic() && channels.getSize() % group != 0)
    return emitNodeError(*this) << "X's channels must be a multiple of group";
  if (channels.isStatic() &&
      failed(context.unify(perGroup, Dim::size(channels.getSize() / group),
                           *this, "W's channels must be X's channels / group")))
    return failure();
  SmallVector<int64_t> kernel, inputSpatial;
  for (size_t i = 2; i < w.size(); ++i)
    kernel.push_back(w[i].getSize());
  for (size_t i = 2; i < x.size(); ++i)
    inputSpatial.push_back(x[i].isStatic() ? x[i].getSize() : -1);
  FailureOr<GradWindow> window = readGradWindow(*this, kernel, inputSpatial);
  if (failed(window))
    return failure();
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (inputSpatial[i] < 0)
      continue;
    int64_t span = inputSpatial[i] + window->padsBegin[i] + window->padsEnd[i] -
                   window->effectiveKernel(i);
    if (span < 0)
      return emitNodeError(*this) << "the kernel is larger than the padded input";
    if (failed(context.unify(dy[2 + i], Dim::size(span / window->strides[i] + 1),
                             *this, "dY's spatial dims must be Conv's output's")))
      return failure();
  }
  (void)inferSameShape(context, getX(), getDX());
  (void)inferSameShape(context, getW(), getDW());
  context.setShape(getDB(), {w[0]}, ShapeContext::getElementType(getW()));
  return success();
}

} // namespace odt::onnx
