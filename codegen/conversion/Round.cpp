//===- Round.cpp - onnx.Round -> linalg -----------------------------------===//
//
// Halves round to even (ONNX Round), as math.roundeven does.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerRound : OpConversionPattern<onnx::RoundOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::RoundOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {math::RoundEvenOp::create(b, loc, args[0])};
        });
  }
};

} // namespace

void populateRoundLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRound>(patterns.getContext());
}

} // namespace odt::codegen
