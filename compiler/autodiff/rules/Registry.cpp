//===- Registry.cpp - attaching the gradient rules to the onnx ops --------===//

#include "compiler/autodiff/rules/RuleSupport.h"

using namespace mlir;

namespace odt {

int64_t intAttrOr(Operation *op, StringRef name, int64_t fallback) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  return attr ? attr.getValue().getSExtValue() : fallback;
}

double floatAttrOr(Operation *op, StringRef name, double fallback) {
  auto attr = op->getAttrOfType<FloatAttr>(name);
  return attr ? attr.getValueAsDouble() : fallback;
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
    attachRecurrentGradients(context);
  });
}

} // namespace odt
