//===- Scale.cpp - onnx.ms.Scale ------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ScaleOp::verify() {
  if (auto type = dyn_cast<RankedTensorType>(getScale().getType()))
    if (type.hasStaticShape() && type.getNumElements() != 1)
      return emitNodeError(*this) << "scale must hold one element";
  return success();
}

LogicalResult ScaleOp::inferShapes(ShapeContext &context) {
  for (Dim dim : context.getShape(getScale()))
    if (failed(context.unify(dim, Dim::size(1), *this,
                             "scale must hold one element")))
      return failure();
  return inferSameShape(context, getInput(), getOutput());
}

} // namespace odt::onnx
