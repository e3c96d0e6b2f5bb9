//===- Atan.cpp - onnx.Atan -> linalg
//--------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerAtan : OpConversionPattern<onnx::AtanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AtanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::AtanOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateAtanLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAtan>(patterns.getContext());
}

} // namespace odt::codegen
