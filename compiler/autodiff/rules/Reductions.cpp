//===- Reductions.cpp - gradient rules of reductions, softmax, norms, loss ===//

#include "compiler/autodiff/rules/RuleSupport.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace odt {
namespace {

/// dY broadcast back over the reduced axes of X (unsqueezed first when the
/// reduction dropped them).
LogicalResult spreadOverAxes(Operation *op, GradientBuilder &b, Value dy,
                             Value &spread, SmallVectorImpl<int64_t> &axes) {
  FailureOr<SmallVector<int64_t>> constantAxes =
      TypeSwitch<Operation *, FailureOr<SmallVector<int64_t>>>(op)
          .Case<onnx::ReduceSumOp, onnx::ReduceMeanOp>(
              [](auto reduce) { return reduce.getConstantAxes(); })
          .Default([](Operation *) { return failure(); });
  if (failed(constantAxes)) {
    b.emitError() << "the reduction axes must be constants";
    return failure();
  }
  axes.assign(constantAxes->begin(), constantAxes->end());
  Value x = op->getOperand(0);
  if (axes.empty()) { // A no-op reduction.
    spread = dy;
    return success();
  }
  auto keepDims = op->getAttrOfType<IntegerAttr>("keepdims");
  if (keepDims && keepDims.getInt() == 0)
    dy = b.create("onnx.Unsqueeze", {dy, b.int64s(axes)});
  spread = b.create("onnx.Expand", {dy, b.shapeOf(x)});
  return success();
}

ODT_GRADIENT_RULE(ReduceSum) {
  SmallVector<int64_t> axes;
  return spreadOverAxes(op, b, dy[0], dx[0], axes);
}

ODT_GRADIENT_RULE(ReduceMean) {
  SmallVector<int64_t> axes;
  Value spread;
  if (failed(spreadOverAxes(op, b, dy[0], spread, axes)))
    return failure();
  dx[0] = axes.empty() ? spread
                       : b.create("onnx.Div", {spread, b.countOver(
                                                           op->getOperand(0),
                                                           axes)});
  return success();
}

int64_t axisOf(Operation *op, int64_t fallback) {
  auto attr = op->getAttrOfType<IntegerAttr>("axis");
  return attr ? attr.getValue().getSExtValue() : fallback;
}

ODT_GRADIENT_RULE(Softmax) {
  dx[0] = b.create("onnx.ms.SoftmaxGrad_13", {dy[0], op->getResult(0)},
                   {b.intAttr("axis", axisOf(op, -1))});
  return success();
}

ODT_GRADIENT_RULE(LogSoftmax) {
  dx[0] = b.create("onnx.ms.LogSoftmaxGrad_13", {dy[0], op->getResult(0)},
                   {b.intAttr("axis", axisOf(op, -1))});
  return success();
}

ODT_GRADIENT_RULE(LayerNormalization) {
  if (dy[1] || dy[2]) {
    b.emitError() << "no gradient rule through LayerNormalization's Mean or "
                     "InvStdDev outputs";
    return failure();
  }
  Operation *grad = b.createOp(
      "onnx.ms.LayerNormalizationGrad",
      {dy[0], op->getOperand(0), op->getOperand(1), op->getResult(1),
       op->getResult(2)},
      {b.intAttr("axis", axisOf(op, -1))}, 3);
  if (!grad)
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (b.needsGradient(i))
      dx[i] = grad->getResult(i);
  return success();
}

ODT_GRADIENT_RULE(SoftmaxCrossEntropyLoss) {
  if (dy[1]) {
    b.emitError() << "no gradient rule through the log_prob output";
    return failure();
  }
  if (b.needsGradient(2)) {
    b.emitError() << "no gradient rule for the class weights";
    return failure();
  }
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"ignore_index", "reduction"})
    if (Attribute attr = op->getAttr(name))
      attrs.push_back(b.getBuilder().getNamedAttr(name, attr));
  dx[0] = b.create("onnx.ms.SoftmaxCrossEntropyLossGrad",
                   {dy[0], op->getResult(1), op->getOperand(1),
                    op->getOperand(2)},
                   attrs);
  return success();
}

} // namespace

void attachReductionGradients(MLIRContext *context) {
  ODT_ATTACH_RULE(ReduceSum);
  ODT_ATTACH_RULE(ReduceMean);
  ODT_ATTACH_RULE(Softmax);
  ODT_ATTACH_RULE(LogSoftmax);
  ODT_ATTACH_RULE(LayerNormalization);
  ODT_ATTACH_RULE(SoftmaxCrossEntropyLoss);
}

} // namespace odt
