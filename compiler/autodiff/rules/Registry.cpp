//===- Registry.cpp - attaching the gradient rules to the onnx ops --------===//

#include "compiler/autodiff/rules/RuleSupport.h"

using namespace mlir;

namespace odt {

Value zerosLike(GradientBuilder &b, Value value) {
  Type element = GradientBuilder::elementType(value);
  auto one = RankedTensorType::get({1}, element);
  return b.create(
      "onnx.ConstantOfShape", {b.shapeOf(value)},
      {b.getBuilder().getNamedAttr(
          "value", DenseElementsAttr::get(
                       one, b.getBuilder().getFloatAttr(element, 0.0)))});
}

LogicalResult buildPerOperandGradients(GradientBuilder &b, StringRef name,
                                       ValueRange operands,
                                       ArrayRef<NamedAttribute> attrs,
                                       MutableArrayRef<Value> dx) {
  Operation *grad = b.createOp(name, operands, attrs, dx.size());
  if (!grad)
    return failure();
  for (unsigned i = 0; i < dx.size(); ++i)
    if (b.needsGradient(i))
      dx[i] = grad->getResult(i);
  return success();
}

void registerGradientRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, onnx::ONNXDialect *) {
    attachElementwiseGradients(context);
    attachProductGradients(context);
    attachReductionGradients(context);
    attachStructureGradients(context);
  });
}

} // namespace odt
