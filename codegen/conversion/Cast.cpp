//===- Cast.cpp - onnx.Cast -> linalg -------------------------------------===//
//
// One conversion per element, from the input's element type to `to`'s:
//   float -> float   extension, or rounding to nearest even (float16 and
//                    bfloat16 in one rounding step, also from double)
//   float -> int     truncation toward zero (fptosi/fptoui)
//   float -> bool    x != 0 (NaN is true, as numpy's astype(bool))
//   int   -> float   (u)itofp; to float16/bfloat16 through f32, as ONNX
//                    Runtime does
//   int   -> int     sign or zero extension by the source's signedness, or
//                    truncation (wraps)
//   int   -> bool    x != 0; bool -> number is 0 or 1
// Elements are not widened first (widenHalf = false): a float16 -> double
// cast is one extension.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// `value`, an element of `from` in its compute type, as an element of `to`
/// in its compute type (no half-float widening).
Value castElement(OpBuilder &b, Location loc, Value value, Type from, Type to) {
  Type target = getComputeType(to, /*widenHalf=*/false);
  bool fromUnsigned = from.isUnsignedInteger() || from.isInteger(1);
  bool toUnsigned = to.isUnsignedInteger();
  if (isa<FloatType>(from)) {
    if (isa<FloatType>(to))
      return convertFloat(b, loc, value, to);
    if (to.isInteger(1))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   createScalar(b, loc, value.getType(), 0.0));
    // Half floats convert through f32 (native extensions, no soft-float).
    if (from.getIntOrFloatBitWidth() < 32)
      value = convertFloat(b, loc, value, b.getF32Type());
    if (toUnsigned)
      return arith::FPToUIOp::create(b, loc, target, value);
    return arith::FPToSIOp::create(b, loc, target, value);
  }
  // From an integer or bool.
  if (auto floatType = dyn_cast<FloatType>(to)) {
    Type via = floatType.getWidth() < 32 ? b.getF32Type() : to;
    Value converted =
        fromUnsigned
            ? arith::UIToFPOp::create(b, loc, via, value).getResult()
            : arith::SIToFPOp::create(b, loc, via, value).getResult();
    return convertFloat(b, loc, converted, to);
  }
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 createScalar(b, loc, value.getType(), 0));
  unsigned fromWidth = value.getType().getIntOrFloatBitWidth();
  unsigned toWidth = target.getIntOrFloatBitWidth();
  if (toWidth == fromWidth)
    return value;
  if (toWidth < fromWidth)
    return arith::TruncIOp::create(b, loc, target, value);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, target, value);
  return arith::ExtSIOp::create(b, loc, target, value);
}

struct LowerCast : OpConversionPattern<onnx::CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = getElementTypeOrSelf(op.getInput().getType());
    Type to = getElementTypeOrSelf(op.getOutput().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getInput()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {castElement(b, loc, args[0], from, to)};
        },
        ElementwiseOptions{/*widenHalf=*/false});
  }
};

} // namespace

void populateCastLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCast>(patterns.getContext());
}

} // namespace odt::codegen
