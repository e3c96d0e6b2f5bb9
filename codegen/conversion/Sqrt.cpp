//===- Sqrt.cpp - onnx.Sqrt -> linalg -------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSqrt : OpConversionPattern<onnx::SqrtOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SqrtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::SqrtOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateSqrtLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSqrt>(patterns.getContext());
}

} // namespace odt::codegen
