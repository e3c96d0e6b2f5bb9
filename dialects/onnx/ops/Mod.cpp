//===- Mod.cpp - onnx.Mod -------------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ModOp::verify() {
  if (failed(verifySameElementType(*this, getA(), getB(), "A and B")))
    return failure();
  int64_t fmod = getFmod();
  if (fmod != 0 && fmod != 1)
    return emitNodeError(*this) << "fmod must be 0 or 1, not " << fmod;
  Type element = cast<ShapedType>(getA().getType()).getElementType();
  if (isa<FloatType>(element) && fmod == 0)
    return emitNodeError(*this)
           << "floating-point Mod needs fmod = 1 (ONNX defines fmod = 0 for "
              "integers only)";
  return success();
}

LogicalResult ModOp::inferShapes(ShapeContext &context) {
  return inferBroadcastResult(context, *this, {getA(), getB()}, getC(),
                              ShapeContext::getElementType(getA()));
}

} // namespace odt::onnx
