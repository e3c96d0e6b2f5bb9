//===- Not.cpp - onnx.Not -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerNot : OpConversionPattern<onnx::NotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::NotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {arith::XOrIOp::create(b, loc, x, createScalar(b, loc, x.getType(), 1))};
        });
  }
};

} // namespace

void populateNotLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerNot>(patterns.getContext());
}

} // namespace odt::codegen
