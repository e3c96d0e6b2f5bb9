//===- LeakyRelu.cpp - onnx.LeakyRelu -> linalg ---------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerLeakyRelu : OpConversionPattern<onnx::LeakyReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LeakyReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                                 createScalar(b, loc, type, 0.0));
          Value scaled =
              arith::MulFOp::create(b, loc, createScalar(b, loc, type, alpha), x);
          return {arith::SelectOp::create(b, loc, negative, scaled, x)};
        });
  }
};

} // namespace

void populateLeakyReluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLeakyRelu>(patterns.getContext());
}

} // namespace odt::codegen
