//===- InPlaceAccumulator.cpp - InPlaceAccumulator, ZeroGradient -> linalg -===//
//
// InPlaceAccumulator: new_sum = update_signal ? old_sum + value : old_sum
// (value broadcast to old_sum; always added without a signal), one
// elementwise pass. ZeroGradient: zeros shaped like old_gradient. The
// training-program assembly makes the buffers these overwrite their homes.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerInPlaceAccumulator : OpConversionPattern<onnx::InPlaceAccumulatorOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::InPlaceAccumulatorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getNewSum().getType());
    Value oldSum = adaptor.getOldSum();
    Value update;
    if (!onnx::isNoValue(adaptor.getUpdateSignal()))
      update = extractScalar(rewriter, loc, adaptor.getUpdateSignal());
    Value init =
        emptyLike(rewriter, loc, resultType, getSizes(rewriter, loc, oldSum));
    Value result =
        buildElementwise(rewriter, loc, {oldSum, adaptor.getValue()}, {init},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value sum = arith::AddFOp::create(b, l, args[0], args[1]);
                           if (!update)
                             return SmallVector<Value>{sum};
                           return SmallVector<Value>{arith::SelectOp::create(
                               b, l, update, sum, args[0])};
                         })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }
};

struct LowerZeroGradient : OpConversionPattern<onnx::ZeroGradientOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ZeroGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getZeroGradient().getType());
    Value zeros = createFilled(rewriter, loc,
                               getSizes(rewriter, loc, adaptor.getOldGradient()),
                               resultType.getElementType(), 0.0);
    rewriter.replaceOp(op, castTensor(rewriter, loc, zeros, resultType));
    return success();
  }
};

} // namespace

void populateInPlaceAccumulatorV1LoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerInPlaceAccumulator, LowerZeroGradient>(patterns.getContext());
}

} // namespace odt::codegen
