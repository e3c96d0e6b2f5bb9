//===- Reductions.cpp - gradient rules of reductions, softmax, norms, loss ===//

#include "compiler/autodiff/rules/RuleSupport.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/ADT/TypeSwitch.h"
#include <limits>

using namespace mlir;

namespace odt {
namespace {

/// dY broadcast back over the reduced axes of X (unsqueezed first when the
/// reduction dropped them).
LogicalResult spreadOverAxes(Operation *op, GradientBuilder &b, Value dy,
                             Value &spread, SmallVectorImpl<int64_t> &axes) {
  FailureOr<SmallVector<int64_t>> constantAxes =
      TypeSwitch<Operation *, FailureOr<SmallVector<int64_t>>>(op)
          .Case<onnx::ReduceSumOp, onnx::ReduceMeanOp, onnx::ReduceMaxOp,
                onnx::ReduceMinOp, onnx::ReduceLogSumExpOp, onnx::ReduceL2Op,
                onnx::ReduceProdOp, onnx::ReduceL1Op, onnx::ReduceSumSquareOp,
                onnx::ReduceLogSumOp>(
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
  if (intAttrOr(op, "keepdims", 1) == 0)
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
  dx[0] = axes.empty()
              ? spread
              : b.create("onnx.Div",
                         {spread, b.countOver(op->getOperand(0), axes)});
  return success();
}

/// Both dY and the reduction's result spread back over the reduced axes
/// (for rules that compare or combine X with the result).
LogicalResult spreadGradientAndResult(Operation *op, GradientBuilder &b,
                                      Value dy, Value &spreadGradient,
                                      Value &spreadResult,
                                      SmallVectorImpl<int64_t> &axes) {
  if (failed(spreadOverAxes(op, b, dy, spreadGradient, axes)))
    return failure();
  return spreadOverAxes(op, b, op->getResult(0), spreadResult, axes);
}

/// ReduceMax and ReduceMin: the gradient goes to the elements equal to the
/// result, shared equally among ties.
LogicalResult extremumReduction(Operation *op, GradientBuilder &b,
                                ArrayRef<Value> dy, MutableArrayRef<Value> dx) {
  SmallVector<int64_t> axes;
  Value spreadGradient, spreadResult;
  if (failed(spreadGradientAndResult(op, b, dy[0], spreadGradient, spreadResult,
                                     axes)))
    return failure();
  Value x = op->getOperand(0);
  Value mask = b.create(
      "onnx.Cast", {b.create("onnx.Equal", {x, spreadResult})},
      {b.intAttr("to", getONNXDataType(GradientBuilder::elementType(x)))});
  Value ties = b.reduceSum(mask, axes, /*keepDims=*/true);
  dx[0] = b.create("onnx.Div",
                   {b.create("onnx.Mul", {spreadGradient, mask}), ties});
  return success();
}

ODT_GRADIENT_RULE(ReduceMax) { return extremumReduction(op, b, dy, dx); }
ODT_GRADIENT_RULE(ReduceMin) { return extremumReduction(op, b, dy, dx); }

ODT_GRADIENT_RULE(ReduceLogSumExp) {
  // d/dx log(sum(exp(x))) = exp(x - y).
  SmallVector<int64_t> axes;
  Value spreadGradient, spreadResult;
  if (failed(spreadGradientAndResult(op, b, dy[0], spreadGradient, spreadResult,
                                     axes)))
    return failure();
  Value weights = b.create(
      "onnx.Exp", {b.create("onnx.Sub", {op->getOperand(0), spreadResult})});
  dx[0] = b.create("onnx.Mul", {spreadGradient, weights});
  return success();
}

ODT_GRADIENT_RULE(ReduceL2) {
  // d sqrt(sum x^2) = x / y.
  SmallVector<int64_t> axes;
  Value spreadGradient, spreadResult;
  if (failed(spreadGradientAndResult(op, b, dy[0], spreadGradient, spreadResult,
                                     axes)))
    return failure();
  dx[0] = b.create("onnx.Mul",
                   {spreadGradient,
                    b.create("onnx.Div", {op->getOperand(0), spreadResult})});
  return success();
}

ODT_GRADIENT_RULE(ReduceSumSquare) {
  // d sum x^2 = 2 x.
  SmallVector<int64_t> axes;
  Value spread;
  if (failed(spreadOverAxes(op, b, dy[0], spread, axes)))
    return failure();
  Value x = op->getOperand(0);
  dx[0] = b.create(
      "onnx.Mul",
      {spread, b.create("onnx.Mul",
                        {x, b.scalar(2.0, GradientBuilder::elementType(x))})});
  return success();
}

ODT_GRADIENT_RULE(ReduceL1) {
  // d sum |x| = sign(x) (0 at 0, as PyTorch).
  SmallVector<int64_t> axes;
  Value spread;
  if (failed(spreadOverAxes(op, b, dy[0], spread, axes)))
    return failure();
  dx[0] = b.create("onnx.Mul",
                   {spread, b.create("onnx.Sign", {op->getOperand(0)})});
  return success();
}

ODT_GRADIENT_RULE(ReduceLogSum) {
  // d log(sum x) = 1 / sum x.
  SmallVector<int64_t> axes;
  Value spreadGradient, spreadResult;
  if (failed(spreadGradientAndResult(op, b, dy[0], spreadGradient, spreadResult,
                                     axes)))
    return failure();
  // The result is log(sum): divide by exp of it.
  dx[0] = b.create("onnx.Div",
                   {spreadGradient, b.create("onnx.Exp", {spreadResult})});
  return success();
}

ODT_GRADIENT_RULE(ReduceProd) {
  // d prod(x) / d x_i is the product of the other elements: with P the
  // product of the non-zero ones and Z the count of zeros, P / x_i when
  // Z = 0, P at the zero when Z = 1, and 0 otherwise (PyTorch's values).
  SmallVector<int64_t> axes;
  Value spread;
  if (failed(spreadOverAxes(op, b, dy[0], spread, axes)))
    return failure();
  Value x = op->getOperand(0);
  Type type = GradientBuilder::elementType(x);
  if (axes.empty()) {
    dx[0] = spread;
    return success();
  }
  Value zero = b.scalar(0.0, type), one = b.scalar(1.0, type);
  Value isZero = b.create("onnx.Equal", {x, zero});
  Value nonZero = b.create("onnx.Where", {isZero, one, x});
  // The product takes its axes the way the forward node does: as an
  // attribute before opset 18, as an input from 18 on.
  Value product =
      op->getAttr("axes")
          ? b.create("onnx.ReduceProd", {nonZero, b.noValue()},
                     {b.intAttr("keepdims", 1), b.intsAttr("axes", axes)})
          : b.create("onnx.ReduceProd", {nonZero, b.int64s(axes)},
                     {b.intAttr("keepdims", 1)});
  Value zeros = b.reduceSum(
      b.create("onnx.Cast", {isZero}, {b.intAttr("to", getONNXDataType(type))}),
      axes, /*keepDims=*/true);
  Value others = b.create(
      "onnx.Where",
      {b.create("onnx.Equal", {zeros, zero}),
       b.create("onnx.Div", {product, nonZero}),
       b.create("onnx.Where",
                {b.create("onnx.And",
                          {b.create("onnx.Equal", {zeros, one}), isZero}),
                 product, zero})});
  dx[0] = b.create("onnx.Mul", {spread, others});
  return success();
}

ODT_GRADIENT_RULE(NegativeLogLikelihoodLoss) {
  if (b.needsGradient(2)) {
    b.emitError() << "no gradient rule for the class weights";
    return failure();
  }
  // ORT's SoftmaxCrossEntropyLossGrad computes (exp(log_prob) - onehot) *
  // w * dY / normalizer with the same ignore_index, weights and reductions;
  // with log_prob = -inf the first term vanishes, leaving NLL's gradient
  // -onehot * w * dY / normalizer.
  Value noProbability =
      b.fullLike(op->getOperand(0), -std::numeric_limits<double>::infinity());
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"ignore_index", "reduction"})
    if (Attribute attr = op->getAttr(name))
      attrs.push_back(b.getBuilder().getNamedAttr(name, attr));
  dx[0] = b.create("onnx.ms.SoftmaxCrossEntropyLossGrad",
                   {dy[0], noProbability, op->getOperand(1), op->getOperand(2)},
                   attrs);
  return success();
}

ODT_GRADIENT_RULE(CumSum) {
  // The gradient of a running sum is the running sum the other way.
  dx[0] = b.create("onnx.CumSum", {dy[0], op->getOperand(1)},
                   {b.intAttr("exclusive", intAttrOr(op, "exclusive", 0)),
                    b.intAttr("reverse", !intAttrOr(op, "reverse", 0))});
  return success();
}

ODT_GRADIENT_RULE(TopK) {
  // The values' gradient scattered back to where TopK took them.
  Value x = op->getOperand(0);
  dx[0] = b.create("onnx.ms.GatherElementsGrad",
                   {dy[0], b.shapeOf(x), op->getResult(1)},
                   {b.intAttr("axis", intAttrOr(op, "axis", -1))});
  return success();
}

ODT_GRADIENT_RULE(Einsum) {
  // "a,b->y": the gradient of input i is the einsum of the output's gradient
  // with the other inputs, onto the labels of input i that appear elsewhere;
  // labels only input i has (summed away) are broadcast back.
  std::string equation =
      op->getAttrOfType<StringAttr>("equation").getValue().str();
  llvm::erase(equation, ' ');
  size_t arrow = equation.find("->");
  if (arrow == std::string::npos || equation.find("...") != std::string::npos) {
    b.emitError() << "no gradient rule for an Einsum without an explicit "
                     "output or with '...'";
    return failure();
  }
  std::string output = equation.substr(arrow + 2);
  SmallVector<std::string> inputs;
  for (StringRef term : llvm::split(StringRef(equation).take_front(arrow), ','))
    inputs.push_back(term.str());
  for (const std::string &term : inputs)
    for (size_t i = 0; i < term.size(); ++i)
      if (term.find(term[i], i + 1) != std::string::npos) {
        b.emitError() << "no gradient rule for an Einsum with a repeated "
                         "label (a diagonal)";
        return failure();
      }
  for (unsigned i = 0; i < inputs.size(); ++i) {
    if (!b.needsGradient(i))
      continue;
    std::string others, kept;
    SmallVector<Value> operands = {dy[0]};
    for (unsigned j = 0; j < inputs.size(); ++j)
      if (j != i) {
        others += inputs[j];
        operands.push_back(op->getOperand(j));
      }
    SmallVector<int64_t> summedAway;
    for (size_t d = 0; d < inputs[i].size(); ++d) {
      char label = inputs[i][d];
      if (output.find(label) != std::string::npos ||
          others.find(label) != std::string::npos)
        kept.push_back(label);
      else
        summedAway.push_back(d);
    }
    std::string gradientEquation = output;
    for (unsigned j = 0; j < inputs.size(); ++j)
      if (j != i)
        gradientEquation += "," + inputs[j];
    gradientEquation += "->" + kept;
    Value gradient = b.create("onnx.Einsum", operands,
                              {b.stringAttr("equation", gradientEquation)});
    if (!summedAway.empty()) {
      gradient = b.create("onnx.Unsqueeze", {gradient, b.int64s(summedAway)});
      gradient =
          b.create("onnx.Expand", {gradient, b.shapeOf(op->getOperand(i))});
    }
    dx[i] = gradient;
  }
  return success();
}

ODT_GRADIENT_RULE(BatchNormalization) {
  if (intAttrOr(op, "training_mode", 0) != 0) {
    // generate-artifacts rewrites it into BatchNormInternal first.
    b.emitError() << "no gradient rule for BatchNormalization in training "
                     "mode (use com.microsoft BatchNormInternal)";
    return failure();
  }
  // Inference mode: y = (x - mean) * inv * scale + B, inv = 1/sqrt(var+eps),
  // all per channel (dim 1).
  Value x = op->getOperand(0), scale = op->getOperand(1),
        mean = op->getOperand(3), var = op->getOperand(4);
  Type type = GradientBuilder::elementType(x);
  double eps = floatAttrOr(op, "epsilon", 1e-5);
  int64_t rank = b.rank(x);
  SmallVector<int64_t> trailing, notChannel = {0};
  for (int64_t d = 1; d + 1 < rank; ++d)
    trailing.push_back(d);
  for (int64_t d = 2; d < rank; ++d)
    notChannel.push_back(d);
  auto perChannel = [&](Value v) {
    return trailing.empty()
               ? v
               : b.create("onnx.Unsqueeze", {v, b.int64s(trailing)});
  };
  Value inv =
      b.create("onnx.Reciprocal",
               {b.create("onnx.Sqrt",
                         {b.create("onnx.Add", {var, b.scalar(eps, type)})})});
  Value centered = b.create("onnx.Sub", {x, perChannel(mean)});
  Value scaleInv = b.create("onnx.Mul", {scale, inv});
  if (b.needsGradient(0))
    dx[0] = b.create("onnx.Mul", {dy[0], perChannel(scaleInv)});
  if (b.needsGradient(1))
    dx[1] = b.reduceSum(
        b.create("onnx.Mul",
                 {b.create("onnx.Mul", {dy[0], centered}), perChannel(inv)}),
        notChannel, /*keepDims=*/false);
  if (b.needsGradient(2))
    dx[2] = b.reduceSum(dy[0], notChannel, /*keepDims=*/false);
  if (b.needsGradient(3))
    dx[3] =
        b.create("onnx.Neg",
                 {b.create("onnx.Mul",
                           {b.reduceSum(dy[0], notChannel, false), scaleInv})});
  if (b.needsGradient(4)) {
    // d inv / d var = -inv^3 / 2.
    Value cubed = b.create("onnx.Mul", {b.create("onnx.Mul", {inv, inv}), inv});
    Value factor = b.create("onnx.Mul", {b.create("onnx.Mul", {scale, cubed}),
                                         b.scalar(-0.5, type)});
    dx[4] = b.create("onnx.Mul",
                     {b.reduceSum(b.create("onnx.Mul", {dy[0], centered}),
                                  notChannel, false),
                      factor});
  }
  return success();
}

ODT_GRADIENT_RULE(Softmax) {
  dx[0] = b.create("onnx.ms.SoftmaxGrad_13", {dy[0], op->getResult(0)},
                   {b.intAttr("axis", intAttrOr(op, "axis", -1))});
  return success();
}

ODT_GRADIENT_RULE(LogSoftmax) {
  dx[0] = b.create("onnx.ms.LogSoftmaxGrad_13", {dy[0], op->getResult(0)},
                   {b.intAttr("axis", intAttrOr(op, "axis", -1))});
  return success();
}

ODT_GRADIENT_RULE(LayerNormalization) {
  if (dy[1] || dy[2]) {
    b.emitError() << "no gradient rule through LayerNormalization's Mean or "
                     "InvStdDev outputs";
    return failure();
  }
  return buildPerOperandGradients(
      b, "onnx.ms.LayerNormalizationGrad",
      {dy[0], op->getOperand(0), op->getOperand(1), op->getResult(1),
       op->getResult(2)},
      {b.intAttr("axis", intAttrOr(op, "axis", -1))}, dx);
}

ODT_GRADIENT_RULE(SimplifiedLayerNormalization) {
  // RMS normalization (ORT contrib): ORT's SimplifiedLayerNormalizationGrad.
  if (dy[1]) {
    b.emitError() << "no gradient rule through the inv_std_var output";
    return failure();
  }
  return buildPerOperandGradients(
      b, "onnx.ms.SimplifiedLayerNormalizationGrad",
      {dy[0], op->getOperand(0), op->getOperand(1), op->getResult(1)},
      {b.intAttr("axis", intAttrOr(op, "axis", -1))}, dx);
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
  dx[0] = b.create(
      "onnx.ms.SoftmaxCrossEntropyLossGrad",
      {dy[0], op->getResult(1), op->getOperand(1), op->getOperand(2)}, attrs);
  return success();
}

ODT_GRADIENT_RULE(BatchNormInternal) {
  // Training mode: ORT's BatchNormalizationGrad from the saved statistics.
  // The running statistics only feed the running outputs: no gradient.
  if (intAttrOr(op, "training_mode", 1) == 0 || b.needsGradient(3) ||
      b.needsGradient(4) || dy[1] || dy[2]) {
    b.emitError() << "no gradient rule for BatchNormInternal's running "
                     "statistics or inference mode";
    return failure();
  }
  SmallVector<NamedAttribute> attrs;
  if (Attribute eps = op->getAttr("epsilon"))
    attrs.push_back(b.getBuilder().getNamedAttr("epsilon", eps));
  return buildPerOperandGradients(b, "onnx.ms.BatchNormalizationGrad",
                                  {dy[0], op->getOperand(0), op->getOperand(1),
                                   op->getResult(3), op->getResult(4)},
                                  attrs, dx.take_front(3));
}

} // namespace

void attachReductionGradients(MLIRContext *context) {
  ODT_ATTACH_RULE(ReduceSum);
  ODT_ATTACH_RULE(ReduceMean);
  ODT_ATTACH_RULE(Softmax);
  ODT_ATTACH_RULE(LogSoftmax);
  ODT_ATTACH_RULE(LayerNormalization);
  ODT_ATTACH_RULE(SimplifiedLayerNormalization);
  ODT_ATTACH_RULE(SoftmaxCrossEntropyLoss);
  ODT_ATTACH_RULE(ReduceMax);
  ODT_ATTACH_RULE(ReduceMin);
  ODT_ATTACH_RULE(ReduceLogSumExp);
  ODT_ATTACH_RULE(CumSum);
  ODT_ATTACH_RULE(ReduceL2);
  ODT_ATTACH_RULE(ReduceSumSquare);
  ODT_ATTACH_RULE(ReduceL1);
  ODT_ATTACH_RULE(ReduceLogSum);
  ODT_ATTACH_RULE(ReduceProd);
  ODT_ATTACH_RULE(NegativeLogLikelihoodLoss);
  ODT_ATTACH_RULE(TopK);
  ODT_ATTACH_RULE(Einsum);
  ODT_ATTACH_RULE(BatchNormalization);
  ODT_ATTACH_RULE(BatchNormInternal);
}

} // namespace odt
