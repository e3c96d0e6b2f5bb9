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

void registerGradientRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, onnx::ONNXDialect *) {
    attachElementwiseGradients(context);
    attachProductGradients(context);
    attachReductionGradients(context);
    attachStructureGradients(context);
  });
}

} // namespace odt
