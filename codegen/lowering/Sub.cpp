//===- Sub.cpp - onnx.Sub -> linalg ---------------------------------------===//
//
// Integers wrap around (two's complement), as in ONNX Runtime.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSub : OpConversionPattern<onnx::SubOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SubOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          if (isa<FloatType>(x.getType()))
            return {arith::SubFOp::create(b, loc, x, y)};
          return {arith::SubIOp::create(b, loc, x, y)};
        });
  }
};

} // namespace

void populateSubLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSub>(patterns.getContext());
}

} // namespace odt::codegen
