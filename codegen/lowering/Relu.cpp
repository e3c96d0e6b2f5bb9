//===- Relu.cpp - onnx.Relu and onnx.ms.ReluGrad -> linalg ----------------===//

#include "codegen/lowering/ElementwiseUtil.h"

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

struct LowerReluGrad : OpConversionPattern<onnx::ReluGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ReluGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = getElementTypeOrSelf(op.getDX().getType());
    Value init = createEmpty(rewriter, loc, getSizes(rewriter, loc, adaptor.getX()),
                             elementType);
    Value zero = createScalar(rewriter, loc, elementType, 0.0);
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, {adaptor.getDY(), adaptor.getX()},
                             {init}, [&](OpBuilder &b, Location l, ValueRange args) {
                               // dX = X > 0 ? dY : 0 (ORT's ReluGrad).
                               Value positive = arith::CmpFOp::create(
                                   b, l, arith::CmpFPredicate::OGT, args[1], zero);
                               return SmallVector<Value>{arith::SelectOp::create(
                                   b, l, positive, args[0], zero)};
                             }));
    return success();
  }
};

} // namespace

void populateReluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRelu, LowerReluGrad>(patterns.getContext());
}

} // namespace odt::codegen
