//===- Conv.cpp - onnx.Conv -----------------------------------------------===//

#include "dialects/onnx/ops/NNGeometry.h"
#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ConvOp::verify() {
  return verifyConvolution(*this, getX(), getW(), getB(), getGroup());
}

LogicalResult ConvOp::inferShapes(ShapeContext &context) {
  Shape x = context.getShape(getX()), w = context.getShape(getW());
  int64_t spatialRank = x.size() - 2;
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(*this, spatialRank, weightSpatialDims(getW()));
  if (failed(kernel))
    return failure();
  FailureOr<WindowAttrs> attrs = readWindowAttrs(*this, *kernel);
  if (failed(attrs))
    return failure();
  for (int64_t i = 0; i < spatialRank; ++i)
    if (failed(context.unify(w[2 + i], Dim::size((*kernel)[i]), *this,
                             "kernel_shape differs from W")))
      return failure();

  // Channels: X has C = group * (W's dim 1); W's M is a multiple of group.
  int64_t group = getGroup();
  Dim c = x[1], cPerGroup = w[1], m = w[0];
  if (c.isStatic() && c.getSize() % group != 0)
    return emitNodeError(*this) << "X has " << c.getSize()
                                << " channels, not divisible by group "
                                << group;
  if (cPerGroup.isStatic()) {
    if (failed(context.unify(c, Dim::size(cPerGroup.getSize() * group), *this,
                             "channels of X differ from W's dim 1 times "
                             "group")))
      return failure();
  } else if (c.isStatic()) {
    if (failed(context.unify(cPerGroup, Dim::size(c.getSize() / group), *this,
                             "W's dim 1")))
      return failure();
  } else if (group == 1 &&
             failed(context.unify(c, cPerGroup, *this,
                                  "channels of X differ from W's dim 1"))) {
    return failure();
  }
  if (m.isStatic() && m.getSize() % group != 0)
    return emitNodeError(*this) << "W has " << m.getSize()
                                << " output channels, not divisible by group "
                                << group;
  if (!isNoValue(getB()) &&
      failed(context.unify(context.getShape(getB())[0], m, *this,
                           "B must have one value per output channel")))
    return failure();

  Shape y = {x[0], context.resolve(m)};
  for (int64_t i = 0; i < spatialRank; ++i) {
    FailureOr<Dim> out = inferWindowDim(
        context, *this, *attrs, i, x[2 + i], /*transposed=*/false,
        (getNodeName(*this) + "_Y_dim" + Twine(2 + i)).str());
    if (failed(out))
      return failure();
    y.push_back(*out);
  }
  context.setShape(getY(), y, ShapeContext::getElementType(getX()));
  return success();
}

} // namespace odt::onnx
