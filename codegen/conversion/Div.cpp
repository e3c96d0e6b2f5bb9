//===- Div.cpp - onnx.Div -> linalg ---------------------------------------===//
//
// Integer division truncates toward zero (signed) as ONNX and C++ do. The two
// divisions the hardware traps on give values instead of a crash: x / 0 is 0,
// and INT_MIN / -1 wraps to INT_MIN (x / -1 is computed as -x).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// x / y for integers without undefined cases.
Value createSafeIntegerDivision(OpBuilder &b, Location loc, Value x, Value y,
                                bool isUnsigned) {
  Type type = x.getType();
  Value zero = createScalar(b, loc, type, 0);
  Value one = createScalar(b, loc, type, 1);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  if (isUnsigned) {
    Value divisor = arith::SelectOp::create(b, loc, byZero, one, y);
    Value quotient = arith::DivUIOp::create(b, loc, x, divisor);
    return arith::SelectOp::create(b, loc, byZero, zero, quotient);
  }
  Value minusOne = createScalar(b, loc, type, -1);
  Value byMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne);
  Value special = arith::OrIOp::create(b, loc, byZero, byMinusOne);
  Value divisor = arith::SelectOp::create(b, loc, special, one, y);
  Value quotient = arith::DivSIOp::create(b, loc, x, divisor);
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  Value result = arith::SelectOp::create(b, loc, byMinusOne, negated, quotient);
  return arith::SelectOp::create(b, loc, byZero, zero, result);
}

struct LowerDiv : OpConversionPattern<onnx::DivOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::DivOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInputs = isUnsignedElement(op.getA().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          if (isa<FloatType>(x.getType()))
            return {arith::DivFOp::create(b, loc, x, y)};
          return {createSafeIntegerDivision(b, loc, x, y, unsignedInputs)};
        });
  }
};

} // namespace

void populateDivLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDiv>(patterns.getContext());
}

} // namespace odt::codegen
