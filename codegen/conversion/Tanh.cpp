//===- Tanh.cpp - onnx.Tanh -> linalg -------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerTanh : OpConversionPattern<onnx::TanhOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::TanhOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::TanhOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateTanhLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTanh>(patterns.getContext());
}

} // namespace odt::codegen
