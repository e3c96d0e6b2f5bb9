//===- Mul.cpp - onnx.Mul -> linalg ---------------------------------------===//
//
// Integers wrap around (two's complement), as in ONNX Runtime.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerMul : OpConversionPattern<onnx::MulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          if (isa<FloatType>(x.getType()))
            return {arith::MulFOp::create(b, loc, x, y)};
          return {arith::MulIOp::create(b, loc, x, y)};
        });
  }
};

} // namespace

void populateMulLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMul>(patterns.getContext());
}

} // namespace odt::codegen
