//===- Elu.cpp - onnx.Elu -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerElu : OpConversionPattern<onnx::EluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::EluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                                 createScalar(b, loc, type, 0.0));
          Value expm1 = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                                              createScalar(b, loc, type, 1.0));
          Value scaled =
              arith::MulFOp::create(b, loc, createScalar(b, loc, type, alpha), expm1);
          return {arith::SelectOp::create(b, loc, negative, scaled, x)};
        });
  }
};

} // namespace

void populateEluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerElu>(patterns.getContext());
}

} // namespace odt::codegen
