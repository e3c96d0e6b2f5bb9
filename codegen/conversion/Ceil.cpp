//===- Ceil.cpp - onnx.Ceil -> linalg -------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerCeil : OpConversionPattern<onnx::CeilOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CeilOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {math::CeilOp::create(b, loc, args[0])};
        });
  }
};

} // namespace

void populateCeilLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCeil>(patterns.getContext());
}

} // namespace odt::codegen
