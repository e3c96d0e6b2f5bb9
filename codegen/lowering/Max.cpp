//===- Max.cpp - onnx.Max -> linalg ---------------------------------------===//
//
// One loop over the broadcast shape of all inputs, folding left to right;
// float NaN propagates (numpy's maximum/minimum).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerMax : OpConversionPattern<onnx::MaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInputs = isUnsignedElement(op.getData_0().front().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getData_0()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value result = args.front();
          for (Value next : args.drop_front())
            result = createMaximum(b, loc, result, next, unsignedInputs);
          return {result};
        });
  }
};

} // namespace

void populateMaxLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMax>(patterns.getContext());
}

} // namespace odt::codegen
