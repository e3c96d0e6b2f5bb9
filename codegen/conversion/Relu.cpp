//===- Relu.cpp - onnx.Relu and onnx.ms.ReluGrad -> linalg ----------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerRelu : OpConversionPattern<onnx::ReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Value zero = createScalar(b, loc, x.getType(), 0.0);
          // maximumf propagates NaN, as ONNX expects; integers (opset 14)
          // compare signed.
          return {createMaximum(b, loc, x, zero, /*isUnsigned=*/false)};
        });
  }
};

} // namespace

void populateReluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRelu>(patterns.getContext());
}

} // namespace odt::codegen
