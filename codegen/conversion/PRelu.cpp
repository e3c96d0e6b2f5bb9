//===- PRelu.cpp - onnx.PRelu -> linalg -----------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerPRelu : OpConversionPattern<onnx::PReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::PReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX(), adaptor.getSlope()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], slope = args[1];
          Type type = x.getType();
          Value zero = createScalar(b, loc, type, 0);
          if (isa<FloatType>(type)) {
            Value negative = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OLT, x, zero);
            return {arith::SelectOp::create(
                b, loc, negative, arith::MulFOp::create(b, loc, slope, x), x)};
          }
          Value negative =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
          return {arith::SelectOp::create(
              b, loc, negative, arith::MulIOp::create(b, loc, slope, x), x)};
        });
  }
};

} // namespace

void populatePReluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerPRelu>(patterns.getContext());
}

} // namespace odt::codegen
