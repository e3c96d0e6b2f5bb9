//===- And.cpp - onnx.And -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerAnd : OpConversionPattern<onnx::AndOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AndOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {arith::AndIOp::create(b, loc, args[0], args[1])};
        });
  }
};

} // namespace

void populateAndLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAnd>(patterns.getContext());
}

} // namespace odt::codegen
