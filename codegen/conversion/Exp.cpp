//===- Exp.cpp - onnx.Exp -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerExp : OpConversionPattern<onnx::ExpOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ExpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::ExpOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateExpLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerExp>(patterns.getContext());
}

} // namespace odt::codegen
