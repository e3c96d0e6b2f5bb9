//===- Softplus.cpp - onnx.Softplus -> linalg -----------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSoftplus : OpConversionPattern<onnx::SoftplusOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftplusOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          // max(x, 0) + log1p(exp(-|x|)): no overflow for large x (ONNX Runtime's
          // form).
          Type type = x.getType();
          Value zero = createScalar(b, loc, type, 0.0);
          Value e = math::ExpOp::create(
              b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
          return {arith::AddFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, zero),
                                        math::Log1pOp::create(b, loc, e))};
        });
  }
};

} // namespace

void populateSoftplusLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSoftplus>(patterns.getContext());
}

} // namespace odt::codegen
