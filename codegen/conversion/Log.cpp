//===- Log.cpp - onnx.Log -> linalg ---------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerLog : OpConversionPattern<onnx::LogOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LogOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {math::LogOp::create(b, loc, x)};
        });
  }
};

} // namespace

void populateLogLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLog>(patterns.getContext());
}

} // namespace odt::codegen
