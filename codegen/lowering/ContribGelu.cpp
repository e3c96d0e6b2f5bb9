//===- ContribGelu.cpp - onnx.ms.Gelu, BiasGelu, FastGelu -> linalg -------===//
//
//   Gelu      Y = 0.5 * X * (1 + erf(X / sqrt(2)))
//   BiasGelu  C = Gelu(A + B)
//   FastGelu  Y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))),
//             x = X (+ bias)
// One elementwise linalg.generic each; a bias broadcasts over the last dim.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/ElementwiseUtil.h"
#include "codegen/lowering/TrainingUtil.h"

#include <cmath>

using namespace mlir;

namespace odt::codegen {
namespace {

Value gelu(OpBuilder &b, Location loc, Value x, bool fast) {
  Type type = x.getType();
  auto cst = [&](double v) { return createScalar(b, loc, type, v); };
  auto mul = [&](Value p, Value q) -> Value {
    return arith::MulFOp::create(b, loc, p, q);
  };
  auto add = [&](Value p, Value q) -> Value {
    return arith::AddFOp::create(b, loc, p, q);
  };
  Value shape;
  if (fast) {
    Value cube = mul(x, mul(x, x));
    shape = math::TanhOp::create(
        b, loc, mul(cst(M_2_SQRTPI * M_SQRT1_2), add(x, mul(cst(0.044715), cube))));
  } else {
    shape = createErf(b, loc, mul(x, cst(M_SQRT1_2)));
  }
  return mul(mul(cst(0.5), x), add(cst(1.0), shape));
}

/// Lowers an op computing Gelu (fast or exact) of its first operand plus an
/// optional bias (its second operand).
template <typename OpTy>
struct LowerGelu : OpConversionPattern<OpTy> {
  LowerGelu(MLIRContext *context, bool fast)
      : OpConversionPattern<OpTy>(context), fast(fast) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> inputs;
    for (Value operand : adaptor.getOperands())
      if (!onnx::isNoValue(operand))
        inputs.push_back(operand);
    Value init = emptyLike(rewriter, loc, resultType,
                           getSizes(rewriter, loc, inputs.front()));
    Value result =
        buildElementwise(rewriter, loc, inputs, {init},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value x = args[0];
                           if (inputs.size() == 2)
                             x = arith::AddFOp::create(b, l, x, args[1]);
                           return SmallVector<Value>{gelu(b, l, x, fast)};
                         })
            .front();
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }

  bool fast;
};

} // namespace

void populateContribGeluLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LowerGelu<onnx::MSGeluOp>>(context, /*fast=*/false);
  patterns.add<LowerGelu<onnx::BiasGeluOp>>(context, /*fast=*/false);
  patterns.add<LowerGelu<onnx::FastGeluOp>>(context, /*fast=*/true);
}

} // namespace odt::codegen
