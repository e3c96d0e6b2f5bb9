//===- ConvTranspose.cpp - onnx.ConvTranspose -----------------------------===//

#include "dialects/onnx/ops/NNGeometry.h"
#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ConvTransposeOp::verify() {
  return verifyConvolution(*this, getX(), getW(), getB(), getGroup());
}

LogicalResult ConvTransposeOp::inferShapes(ShapeContext &context) {
  Shape x = context.getShape(getX()), w = context.getShape(getW());
  int64_t spatialRank = x.size() - 2;
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(*this, spatialRank, weightSpatialDims(getW()));
  if (failed(kernel))
    return failure();
  // The lowering flips the kernel: its spatial dims must be static.
  for (int64_t i = 0; i < spatialRank; ++i)
    if (!w[2 + i].isStatic())
      return emitNodeError(*this) << "the spatial dims of W must be static";
  FailureOr<WindowAttrs> attrs = readWindowAttrs(*this, *kernel);
  if (failed(attrs))
    return failure();
  for (int64_t i = 0; i < spatialRank; ++i)
    if (failed(context.unify(w[2 + i], Dim::size((*kernel)[i]), *this,
                             "kernel_shape differs from W")))
      return failure();

  // Channels: W is C x M/group; X has C channels, a multiple of group.
  int64_t group = getGroup();
  if (failed(context.unify(x[1], w[0], *this,
                           "channels of X differ from W's dim 0")))
    return failure();
  Dim c = context.resolve(x[1]), mPerGroup = w[1];
  if (c.isStatic() && c.getSize() % group != 0)
    return emitNodeError(*this) << "X has " << c.getSize()
                                << " channels, not divisible by group "
                                << group;
  Dim m = mPerGroup;
  if (group != 1)
    m = mPerGroup.isStatic()
            ? Dim::size(mPerGroup.getSize() * group)
            : context.newSymbol(getNodeName(*this) + "_Y_dim1");
  if (!isNoValue(getB()) &&
      failed(context.unify(context.getShape(getB())[0], m, *this,
                           "B must have one value per output channel")))
    return failure();

  Shape y = {x[0], context.resolve(m)};
  for (int64_t i = 0; i < spatialRank; ++i) {
    FailureOr<Dim> out = inferWindowDim(
        context, *this, *attrs, i, x[2 + i], /*transposed=*/true,
        (getNodeName(*this) + "_Y_dim" + Twine(2 + i)).str());
    if (failed(out))
      return failure();
    y.push_back(*out);
  }
  context.setShape(getY(), y, ShapeContext::getElementType(getX()));
  return success();
}

} // namespace odt::onnx
