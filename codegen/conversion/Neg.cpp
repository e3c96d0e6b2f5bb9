//===- Neg.cpp - onnx.Neg -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerNeg : OpConversionPattern<onnx::NegOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::NegOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          if (isa<FloatType>(x.getType()))
            return {arith::NegFOp::create(b, loc, x)};
          return {arith::SubIOp::create(b, loc, createScalar(b, loc, x.getType(), 0), x)};
        });
  }
};

} // namespace

void populateNegLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerNeg>(patterns.getContext());
}

} // namespace odt::codegen
