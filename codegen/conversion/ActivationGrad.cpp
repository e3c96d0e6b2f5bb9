//===- ActivationGrad.cpp - elementwise activation gradients -> linalg ----===//
//
// One elementwise linalg.generic each, with ORT's formulas (ReluGrad,
// SigmoidGrad, TanhGrad and LeakyReluGrad are compositions of ai.onnx ops:
// compiler/passes/DecomposeTrainingOps.cpp):
//   GeluGrad       dX = dY * (0.5 * (1 + erf(X / sqrt(2)))
//                             + X * exp(-X^2 / 2) / sqrt(2 * pi))
//   FastGeluGrad   t = tanh(a * (X + g * X^3)), a = sqrt(2 / pi), g = 0.044715
//                  dX = dY * 0.5 * (1 + t + (1 - t^2) * (a * X + 3 g a X^3))
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"
#include "codegen/conversion/TrainingUtil.h"

#include <cmath>

using namespace mlir;

namespace odt::codegen {
namespace {

/// Scalar arithmetic in one float type.
struct Scalar {
  OpBuilder &b;
  Location loc;
  Type type;
  Value cst(double value) { return createScalar(b, loc, type, value); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
};

using GradFn = Value (*)(Scalar &, Value dY, Value other, Operation *op);

/// Lowers an elementwise gradient op (dY, other) -> dX with `fn`.
template <typename OpTy>
struct LowerElementwiseGrad : OpConversionPattern<OpTy> {
  LowerElementwiseGrad(MLIRContext *context, GradFn fn)
      : OpConversionPattern<OpTy>(context), fn(fn) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value dY = adaptor.getOperands()[0], other = adaptor.getOperands()[1];
    Value init = emptyLike(rewriter, loc, resultType,
                           getSizes(rewriter, loc, other));
    Operation *raw = op.getOperation();
    Value result =
        buildElementwise(rewriter, loc, {dY, other}, {init},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Scalar s{b, l, resultType.getElementType()};
                           return SmallVector<Value>{fn(s, args[0], args[1], raw)};
                         })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }

  GradFn fn;
};

Value geluGrad(Scalar &s, Value dY, Value x, Operation *) {
  Value cdf = s.mul(s.cst(0.5),
                    s.add(s.cst(1.0), createErf(s.b, s.loc,
                                                s.mul(x, s.cst(M_SQRT1_2)))));
  Value exponent = s.mul(s.mul(s.cst(-0.5), x), x);
  Value pdf = s.mul(s.mul(x, s.cst(M_2_SQRTPI * M_SQRT1_2 * 0.5)),
                    math::ExpOp::create(s.b, s.loc, exponent));
  return s.mul(dY, s.add(cdf, pdf));
}

Value fastGeluGrad(Scalar &s, Value dY, Value x, Operation *) {
  constexpr double kAlpha = M_2_SQRTPI * M_SQRT1_2;
  constexpr double kGamma = 0.044715;
  Value cube = s.mul(x, s.mul(x, x));
  Value t = math::TanhOp::create(
      s.b, s.loc, s.mul(s.cst(kAlpha), s.add(x, s.mul(s.cst(kGamma), cube))));
  Value sech2 = s.sub(s.cst(1.0), s.mul(t, t));
  Value inner = s.add(s.mul(s.cst(kAlpha), x),
                      s.mul(s.cst(kGamma * kAlpha * 3.0), cube));
  Value sum = s.add(s.add(t, s.mul(sech2, inner)), s.cst(1.0));
  return s.mul(dY, s.mul(s.cst(0.5), sum));
}

} // namespace

void populateActivationGradLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LowerElementwiseGrad<onnx::GeluGradOp>>(context, geluGrad);
  patterns.add<LowerElementwiseGrad<onnx::FastGeluGradOp>>(context,
                                                           fastGeluGrad);
}

} // namespace odt::codegen
