//===- Dropout.cpp - onnx.Dropout -----------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult DropoutOp::verify() {
  if (failed(verifyScalarOperand(*this, getRatio(), "ratio")) ||
      failed(verifyScalarOperand(*this, getTrainingMode(), "training_mode")))
    return failure();
  // A constant ratio (an initializer, or an input fixed at compile time)
  // must lie in [0, 1).
  if (auto constant = getRatio().getDefiningOp<ConstantOp>()) {
    auto values = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (values && values.getNumElements() == 1) {
      double ratio =
          (*values.getValues<APFloat>().begin()).convertToDouble();
      if (!(ratio >= 0.0 && ratio < 1.0))
        return emitNodeError(*this) << "ratio must be in [0, 1), got "
                                    << ratio;
    }
  }
  return success();
}

LogicalResult DropoutOp::inferShapes(ShapeContext &context) {
  Shape shape = context.getShape(getData());
  context.setShape(getOutput(), shape, ShapeContext::getElementType(getData()));
  context.setShape(getMask(), shape, IntegerType::get(getContext(), 1));
  return success();
}

} // namespace odt::onnx
