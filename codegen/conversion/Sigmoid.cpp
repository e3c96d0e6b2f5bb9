//===- Sigmoid.cpp - onnx.Sigmoid -> linalg -------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSigmoid : OpConversionPattern<onnx::SigmoidOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SigmoidOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          // 1 / (1 + exp(-x)): exp overflows to inf for very negative x, giving 0.
          Type type = x.getType();
          Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
          Value one = createScalar(b, loc, type, 1.0);
          return {arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e))};
        });
  }
};

} // namespace

void populateSigmoidLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSigmoid>(patterns.getContext());
}

} // namespace odt::codegen
