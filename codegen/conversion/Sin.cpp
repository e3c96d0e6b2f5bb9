//===- Sin.cpp - onnx.Sin -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSin : OpConversionPattern<onnx::SinOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::SinOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateSinLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSin>(patterns.getContext());
}

} // namespace odt::codegen
