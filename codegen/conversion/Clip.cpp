//===- Clip.cpp - onnx.Clip -> linalg -------------------------------------===//
//
// output = min(max(input, min), max) with the bounds read once, outside the
// loop; an absent bound does not clip. Floats propagate NaN from the input.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerClip : OpConversionPattern<onnx::ClipOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool unsignedInput = isUnsignedElement(op.getInput().getType());
    Value lower, upper;
    if (!onnx::isNoValue(adaptor.getMin()))
      lower = extractComputeScalar(rewriter, loc, adaptor.getMin());
    if (!onnx::isNoValue(adaptor.getMax()))
      upper = extractComputeScalar(rewriter, loc, adaptor.getMax());
    return lowerToElementwise(
        rewriter, op, {adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          if (lower)
            x = createMaximum(b, l, x, lower, unsignedInput);
          if (upper)
            x = createMinimum(b, l, x, upper, unsignedInput);
          return {x};
        });
  }
};

} // namespace

void populateClipLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerClip>(patterns.getContext());
}

} // namespace odt::codegen
