//===- Erf.cpp - onnx.Erf -> linalg ---------------------------------------===//
//
// erf has no LLVM intrinsic: createErf builds a rational approximation
// from arith ops (about 4e-7 relative error, f32 accuracy).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerErf : OpConversionPattern<onnx::ErfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ErfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInput = isUnsignedElement(op.getX().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          if (isa<FloatType>(x.getType()))
            return {createErf(b, loc, x)};
          // Integers: erf of the value in f64, truncated back (0 or +-1).
          Value wide = unsignedInput
                           ? arith::UIToFPOp::create(b, loc, b.getF64Type(), x).getResult()
                           : arith::SIToFPOp::create(b, loc, b.getF64Type(), x).getResult();
          return {arith::FPToSIOp::create(b, loc, x.getType(), createErf(b, loc, wide))};
        });
  }
};

} // namespace

void populateErfLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerErf>(patterns.getContext());
}

} // namespace odt::codegen
