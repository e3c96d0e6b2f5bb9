//===- Sign.cpp - onnx.Sign -> linalg -------------------------------------===//
//
// Floats: 1, -1, or X itself for zeros and NaN. Integers: (X > 0) - (X < 0);
// unsigned ones: X != 0.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSign : OpConversionPattern<onnx::SignOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool isUnsigned = isUnsignedElement(op.getX().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value zero = createScalar(b, loc, type, 0);
          Value one = createScalar(b, loc, type, 1);
          if (isa<FloatType>(type)) {
            Value positive = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OGT, x, zero);
            Value negative = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OLT, x, zero);
            Value minusOne = createScalar(b, loc, type, -1);
            return {arith::SelectOp::create(
                b, loc, positive, one,
                arith::SelectOp::create(b, loc, negative, minusOne, x))};
          }
          Value nonZero =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
          if (isUnsigned)
            return {arith::ExtUIOp::create(b, loc, type, nonZero)};
          Value positive =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
          Value negative =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
          return {arith::SubIOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, type, positive),
              arith::ExtUIOp::create(b, loc, type, negative))};
        });
  }
};

} // namespace

void populateSignLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSign>(patterns.getContext());
}

} // namespace odt::codegen
