//===- RecurrentUtil.cpp - shared by the recurrent lowerings -------------===//
//
// See RecurrentUtil.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/RecurrentUtil.h"

#include <cmath>

namespace odt::codegen::recurrent {

int64_t gateCount(Cell cell) {
  return cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
}

FailureOr<Config> readConfig(Operation *op, Cell cell) {
  Config config;
  config.cell = cell;
  StringRef direction = "forward";
  if (auto attr = op->getAttrOfType<StringAttr>("direction"))
    direction = attr.getValue();
  config.directions = direction == "bidirectional" ? 2 : 1;
  config.reverseOnly = direction == "reverse";
  if (auto clip = op->getAttrOfType<FloatAttr>("clip"))
    config.clip = clip.getValueAsDouble();
  if (auto lbr = op->getAttrOfType<IntegerAttr>("linear_before_reset"))
    config.linearBeforeReset = lbr.getInt() != 0;
  if (auto forget = op->getAttrOfType<IntegerAttr>("input_forget"))
    config.inputForget = forget.getInt() != 0;
  SmallVector<StringRef, 3> defaults =
      cell == Cell::RNN ? SmallVector<StringRef, 3>{"Tanh"}
      : cell == Cell::GRU
          ? SmallVector<StringRef, 3>{"Sigmoid", "Tanh"}
          : SmallVector<StringRef, 3>{"Sigmoid", "Tanh", "Tanh"};
  SmallVector<StringRef> names;
  if (auto list = op->getAttrOfType<ArrayAttr>("activations")) {
    for (Attribute a : list)
      names.push_back(cast<StringAttr>(a).getValue());
  } else {
    for (int64_t d = 0; d < config.directions; ++d)
      names.append(defaults.begin(), defaults.end());
  }
  ArrayRef<float> alphas, betas;
  if (auto a = op->getAttrOfType<DenseF32ArrayAttr>("activation_alpha"))
    alphas = a.asArrayRef();
  if (auto a = op->getAttrOfType<DenseF32ArrayAttr>("activation_beta"))
    betas = a.asArrayRef();
  size_t nextAlpha = 0, nextBeta = 0;
  auto take = [](ArrayRef<float> list, size_t &next, double fallback) {
    return next < list.size() ? static_cast<double>(list[next++]) : fallback;
  };
  config.activations.resize(config.directions);
  for (auto [index, name] : llvm::enumerate(names)) {
    Activation activation{name.str()};
    // ONNX's defaults; alpha and beta are consumed in order by the
    // functions that take them.
    if (name == "LeakyRelu")
      activation.alpha = take(alphas, nextAlpha, 0.01);
    else if (name == "ThresholdedRelu" || name == "Elu")
      activation.alpha = take(alphas, nextAlpha, 1.0);
    else if (name == "HardSigmoid") {
      activation.alpha = take(alphas, nextAlpha, 0.2);
      activation.beta = take(betas, nextBeta, 0.5);
    } else if (name == "Affine" || name == "ScaledTanh") {
      activation.alpha = take(alphas, nextAlpha, 1.0);
      activation.beta = take(betas, nextBeta, name == "Affine" ? 0.0 : 1.0);
    }
    config.activations[index / defaults.size()].push_back(activation);
  }
  return config;
}

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return createScalar(b, loc, type, value);
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(
      b, loc, constant(b, loc, t, 1.0),
      arith::AddFOp::create(b, loc, constant(b, loc, t, 1.0), e));
}

Value activate(OpBuilder &b, Location loc, Value x, const Activation &a) {
  Type t = x.getType();
  auto c = [&](double v) { return constant(b, loc, t, v); };
  StringRef name = a.name;
  if (name == "Tanh")
    return math::TanhOp::create(b, loc, x);
  if (name == "Sigmoid")
    return sigmoid(b, loc, x);
  if (name == "Relu")
    return arith::MaximumFOp::create(b, loc, x, c(0.0));
  if (name == "Affine")
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(a.alpha), x), c(a.beta));
  if (name == "LeakyRelu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0)),
        arith::MulFOp::create(b, loc, c(a.alpha), x), x);
  if (name == "ThresholdedRelu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(a.alpha)),
        x, c(0.0));
  if (name == "ScaledTanh")
    return arith::MulFOp::create(
        b, loc, c(a.alpha),
        math::TanhOp::create(b, loc,
                             arith::MulFOp::create(b, loc, c(a.beta), x)));
  if (name == "HardSigmoid") {
    Value linear = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(a.alpha), x), c(a.beta));
    return arith::MaximumFOp::create(
        b, loc, c(0.0), arith::MinimumFOp::create(b, loc, c(1.0), linear));
  }
  if (name == "Elu") {
    Value expm1 =
        arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), c(1.0));
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0)),
        arith::MulFOp::create(b, loc, c(a.alpha), expm1), x);
  }
  if (name == "Softsign")
    return arith::DivFOp::create(
        b, loc, x,
        arith::AddFOp::create(b, loc, c(1.0), math::AbsFOp::create(b, loc, x)));
  // Softplus, stably: max(x, 0) + log1p(exp(-|x|)).
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  return arith::AddFOp::create(b, loc,
                               arith::MaximumFOp::create(b, loc, x, c(0.0)),
                               math::Log1pOp::create(b, loc, e));
}

Value activationSlope(OpBuilder &b, Location loc, Value y, StringRef name) {
  Type t = y.getType();
  Value one = constant(b, loc, t, 1.0);
  if (name == "Sigmoid")
    return arith::MulFOp::create(b, loc, y,
                                 arith::SubFOp::create(b, loc, one, y));
  if (name == "Relu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, y,
                              constant(b, loc, t, 0.0)),
        one, constant(b, loc, t, 0.0));
  // Tanh
  return arith::SubFOp::create(b, loc, one,
                               arith::MulFOp::create(b, loc, y, y));
}

Operands readOperands(ValueRange operands, Cell cell) {
  Operands o{operands[0], operands[1], operands[2], Value(),
             Value(),     Value(),     Value(),     Value()};
  o.b = isPresent(operands[3]) ? operands[3] : Value();
  o.sequenceLens = isPresent(operands[4]) ? operands[4] : Value();
  o.initialH = isPresent(operands[5]) ? operands[5] : Value();
  if (cell == Cell::LSTM) {
    o.initialC = isPresent(operands[6]) ? operands[6] : Value();
    o.peepholes = isPresent(operands[7]) ? operands[7] : Value();
  }
  return o;
}

DirectionWeights directionWeights(Emitter &e, const Operands &o, int64_t d,
                                  int64_t gateRows) {
  DirectionWeights weights;
  weights.w = e.direction(o.w, d);
  weights.r = e.direction(o.r, d);
  if (o.b) {
    Value bias = e.vectorOf(o.b, d);
    weights.inputBias = e.slice1D(bias, 0, gateRows);
    weights.recurrentBias = e.slice1D(bias, gateRows, gateRows);
  }
  if (o.peepholes)
    weights.peepholes = e.vectorOf(o.peepholes, d);
  return weights;
}

Value timeIndex(OpBuilder &b, Location loc, Value k, Value steps,
                bool reverse) {
  if (!reverse)
    return k;
  Value last = subIndex(b, loc, steps, indexConstant(b, loc, 1));
  return subIndex(b, loc, last, k);
}

int64_t hiddenSizeOf(Operation *op) {
  // R [D, G*H, H]: its last dim (static: the verifier and shape inference
  // tie it to hidden_size).
  return cast<RankedTensorType>(op->getOperand(2).getType()).getDimSize(2);
}

LogicalResult checkTypes(Operation *op, ConversionPatternRewriter &rewriter,
                         Type &element) {
  auto x = cast<RankedTensorType>(op->getOperand(0).getType());
  element = x.getElementType();
  if (!element.isF32() && !element.isF64())
    return rewriter.notifyMatchFailure(op, "recurrent ops compute f32/f64");
  if (ShapedType::isDynamic(hiddenSizeOf(op)))
    return rewriter.notifyMatchFailure(op, "hidden size must be static");
  return success();
}

FailureOr<Config> readCellOp(Operation *op, Cell cell,
                             ConversionPatternRewriter &rewriter,
                             Type &element) {
  if (failed(checkTypes(op, rewriter, element)))
    return failure();
  return readConfig(op, cell);
}

void replaceWithResults(ConversionPatternRewriter &rewriter, Operation *op,
                        SmallVector<Value> replacements) {
  for (auto [value, result] : llvm::zip(replacements, op->getResults()))
    value = castTensor(rewriter, op->getLoc(), value, result.getType());
  rewriter.replaceOp(op, replacements);
}

} // namespace odt::codegen::recurrent
