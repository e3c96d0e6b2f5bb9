//===- Cos.cpp - onnx.Cos -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerCos : OpConversionPattern<onnx::CosOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CosOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::CosOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateCosLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCos>(patterns.getContext());
}

} // namespace odt::codegen
