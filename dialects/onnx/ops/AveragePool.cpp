//===- AveragePool.cpp - onnx.AveragePool ---------------------------------===//

#include "dialects/onnx/ops/NNGeometry.h"
#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult AveragePoolOp::verify() {
  if (getCountIncludePad() != 0 && getCountIncludePad() != 1)
    return emitNodeError(*this) << "count_include_pad must be 0 or 1, got "
                                << getCountIncludePad();
  std::optional<int64_t> rank = getRank(getX());
  if (!rank)
    return success();
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(*this, *rank - 2, std::nullopt);
  if (failed(kernel) || failed(readWindowAttrs(*this, *kernel)))
    return failure();
  return success();
}

LogicalResult AveragePoolOp::inferShapes(ShapeContext &context) {
  Shape x = context.getShape(getX());
  int64_t spatialRank = x.size() - 2;
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(*this, spatialRank, std::nullopt);
  if (failed(kernel))
    return failure();
  FailureOr<WindowAttrs> attrs = readWindowAttrs(*this, *kernel);
  if (failed(attrs))
    return failure();
  Shape y = {x[0], x[1]};
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
