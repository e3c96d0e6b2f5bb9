//===- FuseDecomposedOps.cpp - LayerNorm and GELU back into single ops ----===//
//
// Matches, from the last op of each pattern backwards:
//   LayerNormalization(x, scale, bias; axis, epsilon) =
//     Add(Mul(Div(d, Sqrt(Add(ReduceMean(Pow(d, 2) | Mul(d, d)), eps))),
//             scale), bias)   with d = Sub(x, ReduceMean(x)),
//     both ReduceMeans over the same trailing axes with keepdims = 1;
//     the final Add (bias) is optional.
//   com.microsoft Gelu(x) =
//     Mul(Mul(x, Add(Erf(Div(x, sqrt 2) | Mul(x, 1/sqrt 2)), 1)), 0.5), or
//     the 0.5 applied to x first.
// Binary ops match with their operands in either order.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEDECOMPOSEDOPS
#include "compiler/passes/Passes.h.inc"

namespace {

/// The single float value of a constant (a scalar or one-element tensor).
std::optional<double> constantValue(Value value) {
  auto constant = value ? value.getDefiningOp<onnx::ConstantOp>() : nullptr;
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  return (*elements.getValues<APFloat>().begin()).convertToDouble();
}

bool near(std::optional<double> value, double expected) {
  return value && std::abs(*value - expected) <= 1e-6 * std::abs(expected);
}

/// `op` if it is an OpTy whose result has exactly one use.
template <typename OpTy> OpTy singleUse(Value value) {
  auto op = value ? value.getDefiningOp<OpTy>() : OpTy();
  return op && value.hasOneUse() ? op : OpTy();
}

/// For a binary op, the operand that is not `known` (or null).
Value other(Operation *op, Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return Value();
}

/// The normalized axes of a ReduceMean with keepdims = 1 over trailing dims;
/// the first of them, or -1 when it is something else.
int64_t trailingMeanAxis(onnx::ReduceMeanOp mean) {
  auto keep = mean->getAttrOfType<IntegerAttr>("keepdims");
  if (keep && keep.getInt() == 0)
    return -1;
  FailureOr<SmallVector<int64_t>> axes = mean.getConstantAxes();
  int64_t rank = cast<RankedTensorType>(mean.getData().getType()).getRank();
  if (failed(axes) || axes->empty() || axes->back() != rank - 1)
    return -1;
  for (size_t i = 1; i < axes->size(); ++i)
    if ((*axes)[i] != (*axes)[i - 1] + 1)
      return -1;
  return axes->front();
}

/// Replaces `last` (and the chain feeding it) with a new op.
void replaceWith(OpBuilder &builder, Operation *last, StringRef name,
                 ValueRange operands, ArrayRef<NamedAttribute> attrs,
                 unsigned numResults) {
  builder.setInsertionPoint(last);
  OperationState state(last->getLoc(), name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.types.push_back(last->getResult(0).getType());
  for (unsigned i = 1; i < numResults; ++i)
    state.types.push_back(UnrankedTensorType::get(
        cast<ShapedType>(last->getResult(0).getType()).getElementType()));
  Operation *fused = builder.create(state);
  last->getResult(0).replaceAllUsesWith(fused->getResult(0));
}

/// LayerNormalization ending at `tail` (the bias Add or the scale Mul).
bool fuseLayerNorm(OpBuilder &builder, Operation *tail) {
  Value bias;
  auto mul = dyn_cast<onnx::MulOp>(tail);
  if (auto add = dyn_cast<onnx::AddOp>(tail)) {
    for (Value operand : add->getOperands())
      if ((mul = singleUse<onnx::MulOp>(operand))) {
        bias = other(add, operand);
        break;
      }
  }
  if (!mul)
    return false;
  onnx::DivOp div;
  Value scale;
  for (Value operand : mul->getOperands())
    if ((div = singleUse<onnx::DivOp>(operand))) {
      scale = other(mul, operand);
      break;
    }
  if (!div)
    return false;
  auto sub = div.getA().getDefiningOp<onnx::SubOp>();
  auto sqrt = singleUse<onnx::SqrtOp>(div.getB());
  if (!sub || !sqrt || !llvm::hasNItems(sub->getUses(), 2))
    return false;
  auto meanX = singleUse<onnx::ReduceMeanOp>(sub.getB());
  if (!meanX || meanX.getData() != sub.getA())
    return false;
  auto addEps = singleUse<onnx::AddOp>(sqrt.getX());
  if (!addEps)
    return false;
  onnx::ReduceMeanOp meanSquare;
  std::optional<double> epsilon;
  for (Value operand : addEps->getOperands())
    if ((meanSquare = singleUse<onnx::ReduceMeanOp>(operand))) {
      epsilon = constantValue(other(addEps, operand));
      break;
    }
  if (!meanSquare || !epsilon || *epsilon <= 0)
    return false;
  Operation *square = meanSquare.getData().getDefiningOp();
  if (!isa_and_nonnull<onnx::PowOp, onnx::MulOp>(square) ||
      !square->getResult(0).hasOneUse())
    return false;
  bool isSquare = (isa<onnx::PowOp>(square) && square->getOperand(0) == sub &&
                   near(constantValue(square->getOperand(1)), 2.0)) ||
                  (isa<onnx::MulOp>(square) && square->getOperand(0) == sub &&
                   square->getOperand(1) == sub);
  // The squares feed the variance; the difference feeds both.
  if (!isSquare)
    return false;
  int64_t axis = trailingMeanAxis(meanX);
  if (axis < 0 || axis != trailingMeanAxis(meanSquare))
    return false;
  Value x = sub.getA();
  auto xType = cast<RankedTensorType>(x.getType());
  auto normalized = xType.getShape().drop_front(axis);
  // Scale and bias must hold one value per normalized element (the
  // LayerNormalization op broadcasts them over the leading dims only).
  for (Value param : {scale, bias}) {
    if (!param)
      continue;
    auto type = dyn_cast<RankedTensorType>(param.getType());
    if (!type || type.getElementType() != xType.getElementType() ||
        type.getShape() != normalized)
      return false;
  }
  SmallVector<Value> operands = {x, scale};
  if (bias)
    operands.push_back(bias);
  replaceWith(
      builder, tail, "onnx.LayerNormalization", operands,
      {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis)),
       builder.getNamedAttr("epsilon", builder.getF32FloatAttr(*epsilon))},
      3);
  return true;
}

/// com.microsoft Gelu ending at `tail` (a Mul).
bool fuseGelu(OpBuilder &builder, onnx::MulOp tail) {
  // Form A: Mul(Mul(x, Add(Erf(..x..), 1)), 0.5).
  // Form B: Mul(Mul(x, 0.5), Add(Erf(..x..), 1)).
  auto erfInputIs = [](onnx::AddOp add, Value x) {
    auto erf = add ? singleUse<onnx::ErfOp>(add.getA()) : onnx::ErfOp();
    if (!erf)
      erf = add ? singleUse<onnx::ErfOp>(add.getB()) : onnx::ErfOp();
    if (!erf || !near(constantValue(other(add, erf)), 1.0))
      return false;
    Operation *scale = erf.getX().getDefiningOp();
    if (!isa_and_nonnull<onnx::DivOp, onnx::MulOp>(scale) ||
        !scale->getResult(0).hasOneUse() || scale->getOperand(0) != x)
      return false;
    std::optional<double> factor = constantValue(scale->getOperand(1));
    return (isa<onnx::DivOp>(scale) && near(factor, std::sqrt(2.0))) ||
           (isa<onnx::MulOp>(scale) && near(factor, 1.0 / std::sqrt(2.0)));
  };
  for (Value half : tail->getOperands()) {
    if (!near(constantValue(half), 0.5))
      continue;
    auto inner = singleUse<onnx::MulOp>(other(tail, half));
    if (!inner)
      continue;
    for (Value operand : inner->getOperands()) {
      auto add = singleUse<onnx::AddOp>(operand);
      Value x = other(inner, operand);
      if (add && x && erfInputIs(add, x)) {
        replaceWith(builder, tail, "onnx.ms.Gelu", {x}, {}, 1);
        return true;
      }
    }
  }
  for (Value operand : tail->getOperands()) {
    auto add = singleUse<onnx::AddOp>(operand);
    auto halved = singleUse<onnx::MulOp>(other(tail, operand));
    if (!add || !halved)
      continue;
    for (Value maybeHalf : halved->getOperands()) {
      Value x = other(halved, maybeHalf);
      if (near(constantValue(maybeHalf), 0.5) && x && erfInputIs(add, x)) {
        replaceWith(builder, tail, "onnx.ms.Gelu", {x}, {}, 1);
        return true;
      }
    }
  }
  return false;
}

struct FuseDecomposedOpsPass
    : impl::FuseDecomposedOpsBase<FuseDecomposedOpsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    OpBuilder builder(&getContext());
    SmallVector<Operation *> candidates;
    func.walk([&](Operation *op) {
      if (isa<onnx::AddOp, onnx::MulOp>(op))
        candidates.push_back(op);
    });
    // Latest first: a LayerNorm's bias Add comes after its scale Mul.
    bool changed = false;
    for (Operation *op : llvm::reverse(candidates)) {
      if (op->use_empty())
        continue;
      if (fuseLayerNorm(builder, op)) {
        changed = true;
        continue;
      }
      if (auto mul = dyn_cast<onnx::MulOp>(op))
        changed |= fuseGelu(builder, mul);
    }
    if (!changed)
      return;
    // The replaced chains are dead now (onnx ops are pure); users come
    // after their producers, so one backward sweep removes whole chains.
    SmallVector<Operation *> ops;
    for (Operation &op : func.front().without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (op->use_empty() && op->getDialect() &&
          op->getDialect()->getNamespace() == "onnx")
        op->erase();
  }
};

} // namespace
} // namespace odt
