//===- Elementwise.cpp - gradient rules of elementwise ops ----------------===//
//
// Binary ops broadcast, so each operand's gradient is summed back to the
// operand's shape. Activations whose derivative is cheapest from their
// output (Relu, Sigmoid, Tanh, Exp, Sqrt) read the output, as ORT's
// gradient builder does, so the input need not stay alive.
//
//===----------------------------------------------------------------------===//

#include "compiler/autodiff/rules/RuleSupport.h"

#include <cmath>

using namespace mlir;

namespace odt {
namespace {

Value x0(Operation *op) { return op->getOperand(0); }
Value y0(Operation *op) { return op->getResult(0); }
Type elem(Value v) { return GradientBuilder::elementType(v); }

ODT_GRADIENT_RULE(Add) {
  for (unsigned i = 0; i < 2; ++i)
    if (b.needsGradient(i))
      dx[i] = b.sumToShapeOf(dy[0], op->getOperand(i));
  return success();
}

ODT_GRADIENT_RULE(Sub) {
  if (b.needsGradient(0))
    dx[0] = b.sumToShapeOf(dy[0], op->getOperand(0));
  if (b.needsGradient(1))
    dx[1] = b.sumToShapeOf(b.create("onnx.Neg", {dy[0]}), op->getOperand(1));
  return success();
}

ODT_GRADIENT_RULE(Mul) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (b.needsGradient(0))
    dx[0] = b.sumToShapeOf(b.create("onnx.Mul", {dy[0], rhs}), lhs);
  if (b.needsGradient(1))
    dx[1] = b.sumToShapeOf(b.create("onnx.Mul", {dy[0], lhs}), rhs);
  return success();
}

ODT_GRADIENT_RULE(Div) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (b.needsGradient(0))
    dx[0] = b.sumToShapeOf(b.create("onnx.Div", {dy[0], rhs}), lhs);
  if (b.needsGradient(1)) {
    // d(a/b)/db = -(a/b)/b = -y/b.
    Value quotient = b.create("onnx.Div", {y0(op), rhs});
    Value scaled = b.create("onnx.Mul", {dy[0], quotient});
    dx[1] = b.sumToShapeOf(b.create("onnx.Neg", {scaled}), rhs);
  }
  return success();
}

ODT_GRADIENT_RULE(Pow) {
  Value base = op->getOperand(0), exponent = op->getOperand(1);
  if (b.needsGradient(0)) {
    // e * a^(e-1), from Pow itself so a = 0 with e >= 1 stays finite.
    Value one = b.scalar(1.0, elem(exponent));
    Value lowered = b.create("onnx.Sub", {exponent, one});
    Value power = b.create("onnx.Pow", {base, lowered});
    Value castExponent = exponent;
    if (elem(exponent) != elem(base))
      castExponent = b.create("onnx.Cast", {exponent},
                              {b.intAttr("to", getONNXDataType(elem(base)))});
    Value derivative = b.create("onnx.Mul", {castExponent, power});
    dx[0] = b.sumToShapeOf(b.create("onnx.Mul", {dy[0], derivative}), base);
  }
  if (b.needsGradient(1)) {
    // d(a^e)/de = a^e * ln(a).
    Value log = b.create("onnx.Log", {base});
    Value derivative = b.create("onnx.Mul", {y0(op), log});
    dx[1] = b.sumToShapeOf(b.create("onnx.Mul", {dy[0], derivative}), exponent);
  }
  return success();
}

ODT_GRADIENT_RULE(Neg) {
  dx[0] = b.create("onnx.Neg", {dy[0]});
  return success();
}

ODT_GRADIENT_RULE(Identity) {
  dx[0] = dy[0];
  return success();
}

ODT_GRADIENT_RULE(Abs) {
  Value negative = b.create("onnx.Less", {x0(op), b.scalar(0.0, elem(x0(op)))});
  dx[0] =
      b.create("onnx.Where", {negative, b.create("onnx.Neg", {dy[0]}), dy[0]});
  return success();
}

ODT_GRADIENT_RULE(Relu) {
  dx[0] = b.create("onnx.ms.ReluGrad", {dy[0], y0(op)});
  return success();
}

ODT_GRADIENT_RULE(LeakyRelu) {
  float alpha = floatAttrOr(op, "alpha", 0.01);
  dx[0] = b.create("onnx.ms.LeakyReluGrad", {dy[0], y0(op)},
                   {b.floatAttr("alpha", alpha)});
  return success();
}

ODT_GRADIENT_RULE(Sigmoid) {
  dx[0] = b.create("onnx.ms.SigmoidGrad", {dy[0], y0(op)});
  return success();
}

ODT_GRADIENT_RULE(Tanh) {
  dx[0] = b.create("onnx.ms.TanhGrad", {dy[0], y0(op)});
  return success();
}

ODT_GRADIENT_RULE(Exp) {
  dx[0] = b.create("onnx.Mul", {dy[0], y0(op)});
  return success();
}

ODT_GRADIENT_RULE(Log) {
  dx[0] = b.create("onnx.Div", {dy[0], x0(op)});
  return success();
}

ODT_GRADIENT_RULE(Sqrt) {
  // d sqrt(x) = 0.5 / sqrt(x).
  Value half = b.create("onnx.Div", {b.scalar(0.5, elem(y0(op))), y0(op)});
  dx[0] = b.create("onnx.Mul", {dy[0], half});
  return success();
}

ODT_GRADIENT_RULE(Reciprocal) {
  Value square = b.create("onnx.Mul", {y0(op), y0(op)});
  dx[0] = b.create("onnx.Neg", {b.create("onnx.Mul", {dy[0], square})});
  return success();
}

ODT_GRADIENT_RULE(Sin) {
  dx[0] = b.create("onnx.Mul", {dy[0], b.create("onnx.Cos", {x0(op)})});
  return success();
}

ODT_GRADIENT_RULE(Cos) {
  Value sine = b.create("onnx.Sin", {x0(op)});
  dx[0] = b.create("onnx.Neg", {b.create("onnx.Mul", {dy[0], sine})});
  return success();
}

ODT_GRADIENT_RULE(Atan) {
  // d atan(x) = 1 / (1 + x^2); ORT's gradient builder has no rule for Atan.
  Value x = x0(op);
  Value denominator = b.create(
      "onnx.Add", {b.scalar(1.0, elem(x)), b.create("onnx.Mul", {x, x})});
  dx[0] = b.create("onnx.Div", {dy[0], denominator});
  return success();
}

ODT_GRADIENT_RULE(Softplus) {
  dx[0] = b.create("onnx.Mul", {dy[0], b.create("onnx.Sigmoid", {x0(op)})});
  return success();
}

ODT_GRADIENT_RULE(Erf) {
  // d erf(x) = 2/sqrt(pi) * exp(-x^2).
  Value x = x0(op);
  Value square = b.create("onnx.Mul", {x, x});
  Value gauss = b.create("onnx.Exp", {b.create("onnx.Neg", {square})});
  Value scale = b.scalar(2.0 / std::sqrt(M_PI), elem(x));
  Value derivative = b.create("onnx.Mul", {gauss, scale});
  dx[0] = b.create("onnx.Mul", {dy[0], derivative});
  return success();
}

ODT_GRADIENT_RULE(Gelu) {
  auto approximate = op->getAttrOfType<StringAttr>("approximate");
  bool tanh = approximate && approximate.getValue() == "tanh";
  dx[0] = b.create(tanh ? "onnx.ms.FastGeluGrad" : "onnx.ms.GeluGrad",
                   {dy[0], x0(op)});
  return success();
}

ODT_GRADIENT_RULE(MSGelu) {
  dx[0] = b.create("onnx.ms.GeluGrad", {dy[0], x0(op)});
  return success();
}

ODT_GRADIENT_RULE(BiasGelu) {
  Value preActivation =
      b.create("onnx.Add", {op->getOperand(0), op->getOperand(1)});
  Value gradient = b.create("onnx.ms.GeluGrad", {dy[0], preActivation});
  if (b.needsGradient(0))
    dx[0] = b.sumToShapeOf(gradient, op->getOperand(0));
  if (b.needsGradient(1))
    dx[1] = b.sumToShapeOf(gradient, op->getOperand(1));
  return success();
}

ODT_GRADIENT_RULE(FastGelu) {
  Value bias = op->getOperand(1), preActivation = op->getOperand(0);
  bool hasBias = !isa<NoneType>(bias.getType());
  if (hasBias)
    preActivation = b.create("onnx.Add", {preActivation, bias});
  Value gradient = b.create("onnx.ms.FastGeluGrad", {dy[0], preActivation});
  if (b.needsGradient(0))
    dx[0] = b.sumToShapeOf(gradient, op->getOperand(0));
  if (hasBias && b.needsGradient(1))
    dx[1] = b.sumToShapeOf(gradient, bias);
  return success();
}

ODT_GRADIENT_RULE(Scale) {
  if (b.needsGradient(1)) {
    b.emitError() << "no gradient rule for Scale's scale";
    return failure();
  }
  SmallVector<NamedAttribute> attrs;
  if (Attribute down = op->getAttr("scale_down"))
    attrs.push_back(b.getBuilder().getNamedAttr("scale_down", down));
  dx[0] = b.create("onnx.ms.Scale", {dy[0], op->getOperand(1)}, attrs);
  return success();
}

ODT_GRADIENT_RULE(Where) {
  Value condition = op->getOperand(0);
  Value zero = b.scalar(0.0, elem(y0(op)));
  if (b.needsGradient(1))
    dx[1] = b.sumToShapeOf(b.create("onnx.Where", {condition, dy[0], zero}),
                           op->getOperand(1));
  if (b.needsGradient(2))
    dx[2] = b.sumToShapeOf(b.create("onnx.Where", {condition, zero, dy[0]}),
                           op->getOperand(2));
  return success();
}

ODT_GRADIENT_RULE(Cast) {
  // Only float -> float casts are differentiable (the driver sees to that).
  dx[0] = b.create("onnx.Cast", {dy[0]},
                   {b.intAttr("to", getONNXDataType(elem(x0(op))))});
  return success();
}

ODT_GRADIENT_RULE(Sum) {
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (b.needsGradient(i))
      dx[i] = b.sumToShapeOf(dy[0], op->getOperand(i));
  return success();
}

/// Max and Min: the gradient goes to the inputs equal to the result, shared
/// equally among tied ones.
LogicalResult extremumGradient(Operation *op, GradientBuilder &b,
                               ArrayRef<Value> dy, MutableArrayRef<Value> dx) {
  Value y = y0(op);
  int64_t floatType = getONNXDataType(elem(y));
  SmallVector<Value> masks;
  Value ties;
  for (Value input : op->getOperands()) {
    Value equal = b.create("onnx.Equal", {input, y});
    Value mask = b.create("onnx.Cast", {equal}, {b.intAttr("to", floatType)});
    masks.push_back(mask);
    ties = ties ? b.create("onnx.Add", {ties, mask}) : mask;
  }
  Value share = b.create("onnx.Div", {dy[0], ties});
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (b.needsGradient(i))
      dx[i] = b.sumToShapeOf(b.create("onnx.Mul", {share, masks[i]}),
                             op->getOperand(i));
  return success();
}

ODT_GRADIENT_RULE(Max) { return extremumGradient(op, b, dy, dx); }
ODT_GRADIENT_RULE(Min) { return extremumGradient(op, b, dy, dx); }

ODT_GRADIENT_RULE(Mean) {
  Value share = b.create("onnx.Div",
                         {dy[0], b.scalar(op->getNumOperands(), elem(y0(op)))});
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (b.needsGradient(i))
      dx[i] = b.sumToShapeOf(share, op->getOperand(i));
  return success();
}

ODT_GRADIENT_RULE(Clip) {
  if (b.needsGradient(1) || b.needsGradient(2)) {
    b.emitError() << "no gradient rule for Clip's min and max";
    return failure();
  }
  // The gradient passes where min <= x <= max (both ends inclusive, as
  // PyTorch's clamp).
  Value x = x0(op), inside;
  auto both = [&](Value mask) {
    inside = inside ? b.create("onnx.And", {inside, mask}) : mask;
  };
  if (!isa<NoneType>(op->getOperand(1).getType()))
    both(b.create("onnx.Not", {b.create("onnx.Less", {x, op->getOperand(1)})}));
  if (!isa<NoneType>(op->getOperand(2).getType()))
    both(b.create("onnx.Not",
                  {b.create("onnx.Greater", {x, op->getOperand(2)})}));
  dx[0] = inside
              ? b.create("onnx.Where", {inside, dy[0], b.scalar(0.0, elem(x))})
              : dy[0];
  return success();
}

ODT_GRADIENT_RULE(Elu) {
  double alpha = floatAttrOr(op, "alpha", 1.0);
  Value x = x0(op);
  // For x <= 0, y = alpha (e^x - 1), so dy/dx = y + alpha.
  Value negativeSlope =
      b.create("onnx.Add", {y0(op), b.scalar(alpha, elem(x))});
  dx[0] = b.create("onnx.Where",
                   {b.create("onnx.Greater", {x, b.scalar(0.0, elem(x))}),
                    dy[0], b.create("onnx.Mul", {dy[0], negativeSlope})});
  return success();
}

ODT_GRADIENT_RULE(HardSigmoid) {
  double alpha = floatAttrOr(op, "alpha", 0.2);
  Value y = y0(op);
  Value inside = b.create(
      "onnx.And", {b.create("onnx.Greater", {y, b.scalar(0.0, elem(y))}),
                   b.create("onnx.Less", {y, b.scalar(1.0, elem(y))})});
  dx[0] =
      b.create("onnx.Where",
               {inside, b.create("onnx.Mul", {dy[0], b.scalar(alpha, elem(y))}),
                b.scalar(0.0, elem(y))});
  return success();
}

ODT_GRADIENT_RULE(Dropout) {
  // Without training_mode (or with it false) Dropout is the identity.
  Value trainingMode = op->getOperand(2);
  if (isa<NoneType>(trainingMode.getType())) {
    dx[0] = dy[0];
    return success();
  }
  dx[0] = b.create("onnx.ms.DropoutGrad",
                   {dy[0], op->getResult(1), op->getOperand(1), trainingMode});
  return success();
}

ODT_GRADIENT_RULE(HardSwish) {
  // y = x * clamp(x / 6 + 1/2, 0, 1): dy/dx = 0 below -3, 1 above 3, and
  // x / 3 + 1/2 between (PyTorch's and ORT's choice at the two kinks: the
  // inner formula's side).
  Value x = x0(op);
  Type type = elem(x);
  Value inner = b.create("onnx.Add",
                         {b.create("onnx.Mul", {x, b.scalar(1.0 / 3.0, type)}),
                          b.scalar(0.5, type)});
  Value belowOrAt = b.create("onnx.Less", {x, b.scalar(-3.0, type)});
  Value above = b.create("onnx.Greater", {x, b.scalar(3.0, type)});
  Value slope =
      b.create("onnx.Where",
               {belowOrAt, b.scalar(0.0, type),
                b.create("onnx.Where", {above, b.scalar(1.0, type), inner})});
  dx[0] = b.create("onnx.Mul", {dy[0], slope});
  return success();
}

ODT_GRADIENT_RULE(Mish) {
  // y = x tanh(sp(x)), sp' = sigmoid: dy/dx = t + x sigmoid(x) (1 - t^2).
  Value x = x0(op);
  Type type = elem(x);
  Value t = b.create("onnx.Tanh", {b.create("onnx.Softplus", {x})});
  Value oneMinusSquare =
      b.create("onnx.Sub", {b.scalar(1.0, type), b.create("onnx.Mul", {t, t})});
  Value xSigmoid = b.create("onnx.Mul", {x, b.create("onnx.Sigmoid", {x})});
  Value derivative = b.create(
      "onnx.Add", {t, b.create("onnx.Mul", {xSigmoid, oneMinusSquare})});
  dx[0] = b.create("onnx.Mul", {dy[0], derivative});
  return success();
}

ODT_GRADIENT_RULE(PRelu) {
  Value x = x0(op), slope = op->getOperand(1);
  Type type = elem(x);
  Value negative = b.create("onnx.Less", {x, b.scalar(0.0, type)});
  Value zero = b.scalar(0.0, type);
  if (b.needsGradient(0))
    dx[0] = b.create("onnx.Where",
                     {negative, b.create("onnx.Mul", {dy[0], slope}), dy[0]});
  if (b.needsGradient(1))
    dx[1] = b.sumToShapeOf(
        b.create("onnx.Where",
                 {negative, b.create("onnx.Mul", {dy[0], x}), zero}),
        slope);
  return success();
}

ODT_GRADIENT_RULE(Selu) {
  double alpha = floatAttrOr(op, "alpha", 1.67326319217681884765625);
  double gamma = floatAttrOr(op, "gamma", 1.05070102214813232421875);
  Value x = x0(op);
  Type type = elem(x);
  // For x <= 0, y = gamma alpha (e^x - 1): dy/dx = y + gamma alpha.
  Value negativeSlope =
      b.create("onnx.Add", {y0(op), b.scalar(gamma * alpha, type)});
  Value slope = b.create("onnx.Where",
                         {b.create("onnx.Greater", {x, b.scalar(0.0, type)}),
                          b.scalar(gamma, type), negativeSlope});
  dx[0] = b.create("onnx.Mul", {dy[0], slope});
  return success();
}

ODT_GRADIENT_RULE(Celu) {
  double alpha = floatAttrOr(op, "alpha", 1.0);
  Value x = x0(op);
  Type type = elem(x);
  // For x <= 0, y = alpha (e^(x/alpha) - 1): dy/dx = e^(x/alpha) = y/alpha + 1.
  Value negativeSlope = b.create(
      "onnx.Add", {b.create("onnx.Div", {y0(op), b.scalar(alpha, type)}),
                   b.scalar(1.0, type)});
  dx[0] = b.create("onnx.Where",
                   {b.create("onnx.Greater", {x, b.scalar(0.0, type)}), dy[0],
                    b.create("onnx.Mul", {dy[0], negativeSlope})});
  return success();
}

ODT_GRADIENT_RULE(ThresholdedRelu) {
  double alpha = floatAttrOr(op, "alpha", 1.0);
  Value x = x0(op);
  Type type = elem(x);
  dx[0] = b.create("onnx.Where",
                   {b.create("onnx.Greater", {x, b.scalar(alpha, type)}), dy[0],
                    b.scalar(0.0, type)});
  return success();
}

ODT_GRADIENT_RULE(Mod) {
  // Float Mod (fmod): a - trunc(a / b) b, so d/da = 1. The divisor's
  // gradient (-trunc(a / b)) has no rule: a model that trains a divisor is
  // refused, naming the node.
  if (b.needsGradient(1)) {
    b.emitError() << "no gradient rule for Mod's divisor B";
    return failure();
  }
  dx[0] = b.sumToShapeOf(dy[0], x0(op));
  return success();
}

/// Piecewise-constant ops: zero gradient everywhere (PyTorch's choice for
/// floor, ceil, round and sign), so a path through them trains nothing.
template <typename OpT>
struct ZeroGradient
    : ::odt::GradientOpInterface::ExternalModel<ZeroGradient<OpT>, OpT> {
  LogicalResult buildGradients(Operation *op, GradientBuilder &b,
                               ArrayRef<Value> dy,
                               MutableArrayRef<Value> dx) const {
    dx[0] = b.fullLike(op->getOperand(0), 0.0);
    return success();
  }
};

} // namespace

void attachElementwiseGradients(MLIRContext *context) {
  onnx::FloorOp::attachInterface<ZeroGradient<onnx::FloorOp>>(*context);
  onnx::CeilOp::attachInterface<ZeroGradient<onnx::CeilOp>>(*context);
  onnx::RoundOp::attachInterface<ZeroGradient<onnx::RoundOp>>(*context);
  onnx::SignOp::attachInterface<ZeroGradient<onnx::SignOp>>(*context);
  ODT_ATTACH_RULE(HardSwish);
  ODT_ATTACH_RULE(Mish);
  ODT_ATTACH_RULE(PRelu);
  ODT_ATTACH_RULE(Selu);
  ODT_ATTACH_RULE(Celu);
  ODT_ATTACH_RULE(ThresholdedRelu);
  ODT_ATTACH_RULE(Mod);
  ODT_ATTACH_RULE(Add);
  ODT_ATTACH_RULE(Sub);
  ODT_ATTACH_RULE(Mul);
  ODT_ATTACH_RULE(Div);
  ODT_ATTACH_RULE(Pow);
  ODT_ATTACH_RULE(Neg);
  ODT_ATTACH_RULE(Identity);
  ODT_ATTACH_RULE(Abs);
  ODT_ATTACH_RULE(Relu);
  ODT_ATTACH_RULE(LeakyRelu);
  ODT_ATTACH_RULE(Sigmoid);
  ODT_ATTACH_RULE(Tanh);
  ODT_ATTACH_RULE(Exp);
  ODT_ATTACH_RULE(Log);
  ODT_ATTACH_RULE(Sqrt);
  ODT_ATTACH_RULE(Reciprocal);
  ODT_ATTACH_RULE(Sin);
  ODT_ATTACH_RULE(Cos);
  ODT_ATTACH_RULE(Softplus);
  ODT_ATTACH_RULE(Atan);
  ODT_ATTACH_RULE(BiasGelu);
  ODT_ATTACH_RULE(FastGelu);
  ODT_ATTACH_RULE(Scale);
  ODT_ATTACH_RULE(Erf);
  ODT_ATTACH_RULE(Gelu);
  ODT_ATTACH_RULE(MSGelu);
  ODT_ATTACH_RULE(Where);
  ODT_ATTACH_RULE(Cast);
  ODT_ATTACH_RULE(Sum);
  ODT_ATTACH_RULE(Dropout);
  ODT_ATTACH_RULE(Max);
  ODT_ATTACH_RULE(Min);
  ODT_ATTACH_RULE(Mean);
  ODT_ATTACH_RULE(Clip);
  ODT_ATTACH_RULE(Elu);
  ODT_ATTACH_RULE(HardSigmoid);
}

} // namespace odt
