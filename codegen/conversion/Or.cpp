//===- Or.cpp - onnx.Or -> linalg -----------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerOr : OpConversionPattern<onnx::OrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::OrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {arith::OrIOp::create(b, loc, args[0], args[1])};
        });
  }
};

} // namespace

void populateOrLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerOr>(patterns.getContext());
}

} // namespace odt::codegen
