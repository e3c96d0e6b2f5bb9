//===- ConstantOfShape.cpp - onnx.ConstantOfShape -------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Builders.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ConstantOfShapeOp::verify() {
  if (failed(verifyRank(*this, getInput(), 1, "input")))
    return failure();
  if (auto value = getValueAttr()) {
    auto type = dyn_cast<ShapedType>(value.getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
      return emitNodeError(*this) << "value must hold exactly one element";
  }
  DenseIntElementsAttr shape;
  if (matchPattern(getInput(), m_Constant(&shape)))
    for (const APInt &dim : shape.getValues<APInt>())
      if (dim.isNegative())
        return emitNodeError(*this) << "input holds a negative dim";
  return success();
}

LogicalResult ConstantOfShapeOp::inferShapes(ShapeContext &context) {
  Dim length = context.getShape(getInput())[0];
  if (!length.isStatic())
    return emitNodeError(*this)
           << "input must have a length known at compile time (the result's "
              "rank)";
  Values dims = context.getPartialValues(getInput())
                    .value_or(Values(length.getSize(), std::nullopt));
  Shape result;
  for (auto [d, dim] : llvm::enumerate(dims)) {
    if (dim && dim->getCoefficient() < 0)
      return emitNodeError(*this) << "input holds a negative dim";
    result.push_back(dim ? *dim : context.newResultSymbol(*this, d));
  }
  Type elementType = Builder(getContext()).getF32Type();
  if (auto value = getValueAttr())
    elementType = cast<ShapedType>(value.getType()).getElementType();
  context.setShape(getOutput(), result, elementType);
  if (auto value = dyn_cast_or_null<DenseIntElementsAttr>(getValueAttr());
      value && !elementType.isInteger(1)) {
    std::optional<int64_t> count;
    SmallVector<int64_t> dimsStatic = context.toStaticDims(result);
    if (llvm::none_of(dimsStatic, ShapedType::isDynamic)) {
      count = 1;
      for (int64_t d : dimsStatic)
        *count *= d;
    }
    if (count && *count <= ShapeContext::kMaxValues)
      context.setValues(
          getOutput(),
          SmallVector<Dim>(*count, Dim::size((*value.begin()).getSExtValue())));
  }
  return success();
}

} // namespace odt::onnx
