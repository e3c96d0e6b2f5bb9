//===- InPlaceAccumulatorV2.cpp - onnx.ms.InPlaceAccumulatorV2 ------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult InPlaceAccumulatorV2Op::verify() {
  if (failed(verifySameElementType(*this, getBuffer(), getValue(),
                                   "buffer and value")))
    return failure();
  if (!isNoValue(getOverwriteFlag()))
    if (auto type = dyn_cast<RankedTensorType>(getOverwriteFlag().getType()))
      if (type.getNumElements() != 1)
        return emitNodeError(*this) << "overwrite_flag must hold one element";
  return success();
}

LogicalResult InPlaceAccumulatorV2Op::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getBuffer(), getValue(),
                         "buffer and value must have the same shape")))
    return failure();
  context.setShape(getUpdatedFlag(), {Dim::size(1)},
                   IntegerType::get(getContext(), 1));
  return inferSameShape(context, getBuffer(), getAccumulationBufferOut());
}

} // namespace odt::onnx
