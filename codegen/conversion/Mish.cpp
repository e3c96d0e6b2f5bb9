//===- Mish.cpp - onnx.Mish -> linalg -------------------------------------===//
//
// softplus(X) = max(X, 0) + log1p(exp(-|X|)), as Softplus computes it (no
// overflow for large X).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerMish : OpConversionPattern<onnx::MishOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MishOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value e = math::ExpOp::create(
              b, loc,
              arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
          Value softplus = arith::AddFOp::create(
              b, loc,
              arith::MaximumFOp::create(b, loc, x,
                                        createScalar(b, loc, type, 0.0)),
              math::Log1pOp::create(b, loc, e));
          return {arith::MulFOp::create(
              b, loc, x, math::TanhOp::create(b, loc, softplus))};
        });
  }
};

} // namespace

void populateMishLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMish>(patterns.getContext());
}

} // namespace odt::codegen
