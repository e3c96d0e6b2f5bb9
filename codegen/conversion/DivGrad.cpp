//===- DivGrad.cpp - onnx.ms.DivGrad -> linalg ----------------------------===//
//
// dA = sum_broadcast(dY / B), dB = sum_broadcast(-dY * A / (B * B)), each
// summed over the dims its input was broadcast along (sumToShape); results
// nothing reads are not computed.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerDivGrad : OpConversionPattern<onnx::DivGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::DivGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dY = adaptor.getDY(), a = adaptor.getA(), b = adaptor.getB();
    auto dyType = cast<RankedTensorType>(dY.getType());
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, dY);
    auto compute = [&](Value result, bool forA) -> Value {
      auto type = cast<RankedTensorType>(result.getType());
      if (result.use_empty())
        return emptyLike(rewriter, loc, type,
                         getSizes(rewriter, loc, forA ? a : b));
      Value init = createEmpty(rewriter, loc, sizes, dyType.getElementType());
      Value full =
          buildElementwise(
              rewriter, loc, {dY, a, b}, {init},
              [&](OpBuilder &nb, Location l, ValueRange args) {
                if (forA)
                  return SmallVector<Value>{
                      arith::DivFOp::create(nb, l, args[0], args[2])};
                Value square = arith::MulFOp::create(nb, l, args[2], args[2]);
                Value ratio = arith::DivFOp::create(
                    nb, l, arith::NegFOp::create(nb, l, args[1]), square);
                return SmallVector<Value>{
                    arith::MulFOp::create(nb, l, args[0], ratio)};
              })
              .front();
      return sumToShape(rewriter, loc, full, type);
    };
    Value dA = compute(op.getDA(), true);
    Value dB = compute(op.getDB(), false);
    rewriter.replaceOp(op, {dA, dB});
    return success();
  }
};

} // namespace

void populateDivGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDivGrad>(patterns.getContext());
}

} // namespace odt::codegen
