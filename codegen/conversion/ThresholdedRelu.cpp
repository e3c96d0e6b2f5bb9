//===- ThresholdedRelu.cpp - onnx.ThresholdedRelu -> linalg ---------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerThresholdedRelu : OpConversionPattern<onnx::ThresholdedReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ThresholdedReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value above =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                    createScalar(b, loc, type, alpha));
          return {arith::SelectOp::create(b, loc, above, x,
                                          createScalar(b, loc, type, 0.0))};
        });
  }
};

} // namespace

void populateThresholdedReluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerThresholdedRelu>(patterns.getContext());
}

} // namespace odt::codegen
