//===- Pow.cpp - onnx.Pow -> linalg ---------------------------------------===//
//
// Z = X ^ Y with Z of X's type. A float X raises to Y converted to X's
// compute type (math.powf). An integer X computes in f64 and truncates back,
// as ONNX Runtime does (std::pow on doubles), so 2 ^ -1 is 0.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// A compute-type scalar (float, or signless integer that is unsigned when
/// `isUnsigned`) as a float of `type`.
Value toFloat(OpBuilder &b, Location loc, Value value, Type type,
              bool isUnsigned) {
  if (isa<FloatType>(value.getType()))
    return convertFloat(b, loc, value, type);
  if (isUnsigned)
    return arith::UIToFPOp::create(b, loc, type, value);
  return arith::SIToFPOp::create(b, loc, type, value);
}

struct LowerPow : OpConversionPattern<onnx::PowOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::PowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedExponent = isUnsignedElement(op.getY().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getX(), adaptor.getY()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          Type type = x.getType();
          if (isa<FloatType>(type)) {
            Value exponent = toFloat(b, loc, y, type, unsignedExponent);
            return {math::PowFOp::create(b, loc, x, exponent)};
          }
          Type f64 = b.getF64Type();
          Value base = arith::SIToFPOp::create(b, loc, f64, x);
          Value exponent = toFloat(b, loc, y, f64, unsignedExponent);
          Value power = math::PowFOp::create(b, loc, base, exponent);
          return {arith::FPToSIOp::create(b, loc, type, power)};
        });
  }
};

} // namespace

void populatePowLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerPow>(patterns.getContext());
}

} // namespace odt::codegen
