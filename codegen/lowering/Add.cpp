//===- Add.cpp - onnx.Add -> linalg ---------------------------------------===//
//
// Integers wrap around (two's complement), as in ONNX Runtime.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerAdd : OpConversionPattern<onnx::AddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          if (isa<FloatType>(x.getType()))
            return {arith::AddFOp::create(b, loc, x, y)};
          return {arith::AddIOp::create(b, loc, x, y)};
        });
  }
};

} // namespace

void populateAddLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAdd>(patterns.getContext());
}

} // namespace odt::codegen
