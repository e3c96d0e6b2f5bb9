//===- ReluGrad.cpp - onnx.ms.ReluGrad ------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ReluGradOp::verify() {
  return verifySameElementType(*this, getDY(), getX(), "dY and X");
}

LogicalResult ReluGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getDY(), getX(),
                         "dY and X must have the same shape")))
    return failure();
  return inferSameShape(context, getX(), getDX());
}

} // namespace odt::onnx
