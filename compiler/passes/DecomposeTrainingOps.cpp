//===- DecomposeTrainingOps.cpp - com.microsoft ops as ai.onnx ops --------===//
//
// ORT's formulas (its CPU kernels), written with ai.onnx ops:
//   ReluGrad(dY, X)             = Where(X > 0, dY, 0)
//   SigmoidGrad(dY, Y)          = dY * (Y * (1 - Y))
//   TanhGrad(dY, Y)             = dY * (1 - Y * Y)
//   LeakyReluGrad(dY, Y; alpha) = Where(Y > 0, dY, dY * alpha)
//   Gelu(X)                     = Gelu(X)                    (ai.onnx, exact)
//   BiasGelu(A, B)              = Gelu(A + B)                (exact)
//   FastGelu(X[, bias])         = Gelu(X [+ bias], "tanh")
// ai.onnx Gelu's tanh form is FastGelu's formula
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// A ReLU gradient's mask X > 0 then reads Relu(X) when the graph has it.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_DECOMPOSETRAININGOPS
#include "compiler/passes/Passes.h.inc"

namespace {

/// Builds ai.onnx ops at one node's location, typed from known shapes.
struct Composer {
  OpBuilder &b;
  Location loc;

  /// A 0-d constant of `like`'s element type.
  Value scalar(Value like, double value) {
    Type element = cast<ShapedType>(like.getType()).getElementType();
    auto type = RankedTensorType::get({}, element);
    Attribute attr = FloatAttr::get(element, value);
    return onnx::ConstantOp::create(b, loc, type,
                                    DenseElementsAttr::get(type, attr));
  }
  template <typename OpTy>
  Value op(Type resultType, ValueRange operands,
           ArrayRef<NamedAttribute> attrs = {}) {
    return OpTy::create(b, loc, TypeRange{resultType}, operands, attrs)
        ->getResult(0);
  }
  Value mul(Value x, Value y) { return op<onnx::MulOp>(x.getType(), {x, y}); }
  Value sub(Value x, Value y) { return op<onnx::SubOp>(y.getType(), {x, y}); }
  Value positive(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return op<onnx::GreaterOp>(type.clone(b.getI1Type()),
                               {x, scalar(x, 0.0)});
  }
  Value gelu(Type resultType, Value x, StringRef approximate) {
    return op<onnx::GeluOp>(
        resultType, {x},
        {b.getNamedAttr("approximate", b.getStringAttr(approximate))});
  }
};

/// The composition replacing `op`, or null if `op` is not decomposed.
Value decompose(Operation *op) {
  OpBuilder builder(op);
  Composer c{builder, op->getLoc()};
  Type resultType = op->getNumResults() == 1 ? op->getResult(0).getType()
                                             : Type();
  if (auto grad = dyn_cast<onnx::ReluGradOp>(op))
    return c.op<onnx::WhereOp>(resultType,
                               {c.positive(grad.getX()), grad.getDY(),
                                c.scalar(grad.getDY(), 0.0)});
  if (auto grad = dyn_cast<onnx::SigmoidGradOp>(op)) {
    Value y = grad.getY();
    return c.mul(grad.getDY(), c.mul(y, c.sub(c.scalar(y, 1.0), y)));
  }
  if (auto grad = dyn_cast<onnx::TanhGradOp>(op)) {
    Value y = grad.getY();
    return c.mul(grad.getDY(), c.sub(c.scalar(y, 1.0), c.mul(y, y)));
  }
  if (auto grad = dyn_cast<onnx::LeakyReluGradOp>(op)) {
    Value dY = grad.getDY();
    Value scaled =
        c.mul(dY, c.scalar(dY, grad.getAlphaAttr().getValueAsDouble()));
    return c.op<onnx::WhereOp>(resultType,
                               {c.positive(grad.getY()), dY, scaled});
  }
  if (auto gelu = dyn_cast<onnx::MSGeluOp>(op))
    return c.gelu(resultType, gelu.getX(), "none");
  if (auto gelu = dyn_cast<onnx::BiasGeluOp>(op))
    return c.gelu(resultType,
                  c.op<onnx::AddOp>(resultType, {gelu.getA(), gelu.getB()}),
                  "none");
  if (auto gelu = dyn_cast<onnx::FastGeluOp>(op)) {
    Value x = gelu.getX();
    if (!onnx::isNoValue(gelu.getBias()))
      x = c.op<onnx::AddOp>(resultType, {x, gelu.getBias()});
    return c.gelu(resultType, x, "tanh");
  }
  return nullptr;
}

/// Whether `value` is a constant whose every element is zero.
bool isZeroConstant(Value value) {
  auto constant = value.getDefiningOp<onnx::ConstantOp>();
  auto elements =
      constant ? dyn_cast<DenseFPElementsAttr>(constant.getValue()) : nullptr;
  return elements && llvm::all_of(elements.getValues<APFloat>(),
                                  [](const APFloat &v) { return v.isZero(); });
}

/// A ReLU gradient's mask X > 0 reads Relu(X) instead of X when the graph
/// computes Relu(X) before it: Relu(X) > 0 exactly when X > 0 (NaN and -0
/// included). X (a convolution's output) is then read by the Relu alone,
/// so a backend can apply the Relu in the convolution's kernel (the CPU
/// does: odt.convolution's relu epilogue).
void maskFromReluOutput(onnx::GreaterOp greater) {
  Value x = greater.getA();
  if (!isZeroConstant(greater.getB()))
    return;
  for (Operation *user : x.getUsers()) {
    auto relu = dyn_cast<onnx::ReluOp>(user);
    if (relu && relu->getBlock() == greater->getBlock() &&
        relu->isBeforeInBlock(greater) &&
        relu.getY().getType() == x.getType()) {
      greater->setOperand(0, relu.getY());
      return;
    }
  }
}

struct DecomposeTrainingOpsPass
    : impl::DecomposeTrainingOpsBase<DecomposeTrainingOpsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      Value replacement = decompose(op);
      if (!replacement)
        continue;
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
    getOperation().walk(
        [](onnx::GreaterOp greater) { maskFromReluOutput(greater); });
  }
};

} // namespace
} // namespace odt
