//===- Optimizers.cpp - AdamWOptimizer and SGDOptimizerV2 -> linalg -------===//
//
// One elementwise pass per parameter updates the weight and both moments
// together. The bias corrections follow ORT's CPU kernel exactly: powers in
// double, cast to float (see docs/optimizers.md):
//   a = 1 - (float)pow((double)alpha, step), b = 1 - (float)pow((double)beta, step)
//   lr_c = lr * sqrt(b) / a                         (a = b = 1, lr_c = lr
//                                                    without correct_bias)
//   mode 0: w -= w * lr * wd; m = alpha m + (1 - alpha) g;
//           v = beta v + (1 - beta) g g; w -= lr m / (a (sqrt(v / b) + eps))
//   mode 1: m, v as above; w -= lr_c m / (sqrt(v) + eps); w -= lr wd w
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

using namespace mlir;

namespace odt::codegen {
namespace {

Value trueFlag(ConversionPatternRewriter &rewriter, Location loc, Value flag) {
  auto type = cast<RankedTensorType>(flag.getType());
  return arith::ConstantOp::create(rewriter, loc,
                                   DenseElementsAttr::get(type, true));
}

struct LowerAdamW : OpConversionPattern<onnx::AdamWOptimizerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AdamWOptimizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Type f64 = rewriter.getF64Type();
    float alpha = op.getAlpha().convertToFloat();
    float beta = op.getBeta().convertToFloat();
    float epsilon = op.getEpsilon().convertToFloat();
    float weightDecay = op.getWeightDecay().convertToFloat();
    bool correctBias = op.getCorrectBias() == 1;
    int64_t mode = op.getAdamMode();

    Value lr = extractScalar(rewriter, loc, adaptor.getLr());
    Value one = createScalar(rewriter, loc, f32, 1.0);
    Value alphaCorrection = one, betaCorrection = one, lrCorrected = lr;
    if (correctBias) {
      Value step = extractScalar(rewriter, loc, adaptor.getStep());
      Value stepF64 = arith::SIToFPOp::create(rewriter, loc, f64, step);
      auto correction = [&](float base) -> Value {
        Value baseF64 = createScalar(rewriter, loc, f64, static_cast<double>(base));
        Value power = math::PowFOp::create(rewriter, loc, baseF64, stepF64);
        Value powerF32 = arith::TruncFOp::create(rewriter, loc, f32, power);
        return arith::SubFOp::create(rewriter, loc, one, powerF32);
      };
      alphaCorrection = correction(alpha);
      betaCorrection = correction(beta);
      Value sqrtB = math::SqrtOp::create(rewriter, loc, betaCorrection);
      lrCorrected = arith::MulFOp::create(
          rewriter, loc, lr,
          arith::DivFOp::create(rewriter, loc, sqrtB, alphaCorrection));
    }

    SmallVector<Value> newWeights, newM1, newM2;
    for (auto [weight, gradient, m1, m2] :
         llvm::zip(adaptor.getWeights(), adaptor.getGradients(),
                   adaptor.getMomentums_1(), adaptor.getMomentums_2())) {
      Type elementType = getElementTypeOrSelf(weight.getType());
      if (!elementType.isF32())
        return rewriter.notifyMatchFailure(op, "AdamW supports float32 weights");
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, weight);
      SmallVector<Value> inits = {createEmpty(rewriter, loc, sizes, f32),
                                  createEmpty(rewriter, loc, sizes, f32),
                                  createEmpty(rewriter, loc, sizes, f32)};
      ValueRange updated = buildElementwise(
          rewriter, loc, {weight, gradient, m1, m2}, inits,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value w = args[0], g = args[1], m = args[2], v = args[3];
            auto cst = [&](float value) { return createScalar(b, l, f32, value); };
            auto mul = [&](Value x, Value y) -> Value {
              return arith::MulFOp::create(b, l, x, y);
            };
            auto add = [&](Value x, Value y) -> Value {
              return arith::AddFOp::create(b, l, x, y);
            };
            auto sub = [&](Value x, Value y) -> Value {
              return arith::SubFOp::create(b, l, x, y);
            };
            auto div = [&](Value x, Value y) -> Value {
              return arith::DivFOp::create(b, l, x, y);
            };
            Value decay = cst(weightDecay);
            if (mode == 0)
              w = sub(w, mul(mul(w, lr), decay));
            m = add(mul(cst(alpha), m), mul(cst(1.0f - alpha), g));
            v = add(mul(cst(beta), v), mul(mul(cst(1.0f - beta), g), g));
            if (mode == 0) {
              Value denom = add(math::SqrtOp::create(b, l, div(v, betaCorrection)),
                                cst(epsilon));
              w = sub(w, div(mul(lr, m), mul(alphaCorrection, denom)));
            } else {
              Value denom = add(math::SqrtOp::create(b, l, v), cst(epsilon));
              w = sub(w, div(mul(lrCorrected, m), denom));
              w = sub(w, mul(mul(lr, decay), w));
            }
            return SmallVector<Value>{w, m, v};
          });
      newWeights.push_back(updated[0]);
      newM1.push_back(updated[1]);
      newM2.push_back(updated[2]);
    }
    SmallVector<Value> results = {trueFlag(rewriter, loc, op.getUpdatedFlag())};
    results.append(newWeights);
    results.append(newM1);
    results.append(newM2);
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct LowerSGD : OpConversionPattern<onnx::SGDOptimizerV2Op> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SGDOptimizerV2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lr = extractScalar(rewriter, loc, adaptor.getLr());
    SmallVector<Value> results = {trueFlag(rewriter, loc, op.getUpdateCompleted())};
    for (auto [weight, gradient] :
         llvm::zip(adaptor.getWeights(), adaptor.getGradients())) {
      Type elementType = getElementTypeOrSelf(weight.getType());
      if (!elementType.isF32())
        return rewriter.notifyMatchFailure(op, "SGD supports float32 weights");
      Value init = createEmpty(rewriter, loc, getSizes(rewriter, loc, weight),
                               elementType);
      results.push_back(
          buildElementwise(rewriter, loc, {weight, gradient}, {init},
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             Value step = arith::MulFOp::create(b, l, lr, args[1]);
                             return SmallVector<Value>{
                                 arith::SubFOp::create(b, l, args[0], step)};
                           })
              .front());
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateOptimizerLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAdamW, LowerSGD>(patterns.getContext());
}

} // namespace odt::codegen
