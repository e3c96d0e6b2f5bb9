//===- Abs.cpp - onnx.Abs -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerAbs : OpConversionPattern<onnx::AbsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AbsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInput = isUnsignedElement(op.getX().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          if (isa<FloatType>(x.getType()))
            return {math::AbsFOp::create(b, loc, x)};
          if (unsignedInput)
            return {x};
          return {math::AbsIOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateAbsLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAbs>(patterns.getContext());
}

} // namespace odt::codegen
