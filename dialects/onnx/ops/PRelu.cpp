//===- PRelu.cpp - onnx.PRelu ---------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult PReluOp::verify() {
  return verifySameElementType(*this, getX(), getSlope(), "X and slope");
}

LogicalResult PReluOp::inferShapes(ShapeContext &context) {
  // slope broadcasts to X (unidirectionally): the result has X's shape.
  FailureOr<Shape> shape =
      inferBroadcastShape(context, *this, {getX(), getSlope()});
  if (failed(shape))
    return failure();
  Shape x = context.getShape(getX());
  if (shape->size() != x.size())
    return emitNodeError(*this)
           << "slope has a higher rank than X: it must broadcast to X";
  for (auto [dim, xDim] : llvm::zip(*shape, x))
    if (context.resolve(dim) != context.resolve(xDim))
      return emitNodeError(*this)
             << "slope must broadcast to X's shape " << formatShape(context, x);
  context.setShape(getY(), x, ShapeContext::getElementType(getX()));
  return success();
}

} // namespace odt::onnx
