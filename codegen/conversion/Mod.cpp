//===- Mod.cpp - onnx.Mod -> linalg ---------------------------------------===//
//
// Integers: the remainder takes the sign of B unless fmod = 1 (then that of
// A, as the hardware computes it); X mod 0 is 0 instead of a trap, as for
// Div. Floats (fmod = 1 only): C's fmod.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerMod : OpConversionPattern<onnx::ModOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ModOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool isUnsigned = isUnsignedElement(op.getA().getType());
    bool fmod = op.getFmod() != 0;
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          Type type = x.getType();
          if (isa<FloatType>(type))
            return {arith::RemFOp::create(b, loc, x, y)};
          Value zero = createScalar(b, loc, type, 0);
          Value one = createScalar(b, loc, type, 1);
          Value byZero =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
          Value divisor = arith::SelectOp::create(b, loc, byZero, one, y);
          if (isUnsigned) {
            Value remainder = arith::RemUIOp::create(b, loc, x, divisor);
            return {arith::SelectOp::create(b, loc, byZero, zero, remainder)};
          }
          // x % -1 is 0; remsi would trap on INT_MIN % -1.
          Value minusOne = createScalar(b, loc, type, -1);
          Value byMinusOne = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq, y, minusOne);
          Value special = arith::OrIOp::create(b, loc, byZero, byMinusOne);
          divisor = arith::SelectOp::create(b, loc, special, one, y);
          Value remainder = arith::RemSIOp::create(b, loc, x, divisor);
          if (!fmod) {
            // Move a remainder whose sign differs from the divisor's.
            Value nonZero = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ne, remainder, zero);
            Value remainderNegative = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, remainder, zero);
            Value divisorNegative = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, y, zero);
            Value differ = arith::XOrIOp::create(b, loc, remainderNegative,
                                                 divisorNegative);
            Value adjust = arith::AndIOp::create(b, loc, nonZero, differ);
            remainder = arith::SelectOp::create(
                b, loc, adjust, arith::AddIOp::create(b, loc, remainder, y),
                remainder);
          }
          return {arith::SelectOp::create(b, loc, special, zero, remainder)};
        });
  }
};

} // namespace

void populateModLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMod>(patterns.getContext());
}

} // namespace odt::codegen
