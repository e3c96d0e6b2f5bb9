//===- Reciprocal.cpp - onnx.Reciprocal -> linalg -------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerReciprocal : OpConversionPattern<onnx::ReciprocalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ReciprocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {arith::DivFOp::create(b, loc, createScalar(b, loc, x.getType(), 1.0),
                                         x)};
        });
  }
};

} // namespace

void populateReciprocalLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReciprocal>(patterns.getContext());
}

} // namespace odt::codegen
