//===- Selu.cpp - onnx.Selu -> linalg -------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSelu : OpConversionPattern<onnx::SeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    double gamma = op.getGamma().convertToDouble();
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value positive =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                    createScalar(b, loc, type, 0.0));
          Value expm1 =
              arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                                    createScalar(b, loc, type, 1.0));
          Value negativePart = arith::MulFOp::create(
              b, loc, createScalar(b, loc, type, alpha), expm1);
          Value inner =
              arith::SelectOp::create(b, loc, positive, x, negativePart);
          return {arith::MulFOp::create(
              b, loc, createScalar(b, loc, type, gamma), inner)};
        });
  }
};

} // namespace

void populateSeluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSelu>(patterns.getContext());
}

} // namespace odt::codegen
