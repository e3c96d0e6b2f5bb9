//===- InPlaceAccumulatorV2.cpp - gradient accumulation -> linalg ---------===//
//
// out = overwrite_flag ? value : buffer + value, one elementwise pass; the
// updated flag is the constant true (ORT's kernel always updates).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerInPlaceAccumulatorV2 : OpConversionPattern<onnx::InPlaceAccumulatorV2Op> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::InPlaceAccumulatorV2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value buffer = adaptor.getBuffer();
    Type elementType = getElementTypeOrSelf(buffer.getType());
    Value overwrite;
    if (!onnx::isNoValue(adaptor.getOverwriteFlag()))
      overwrite = extractScalar(rewriter, loc, adaptor.getOverwriteFlag());
    // The update is written into a fresh tensor shaped like the buffer; the
    // destination-passing boundary later makes the buffer itself its home.
    Value init = createEmpty(rewriter, loc, getSizes(rewriter, loc, buffer),
                             elementType);
    Value updated =
        buildElementwise(rewriter, loc, {buffer, adaptor.getValue()}, {init},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value sum = arith::AddFOp::create(b, l, args[0], args[1]);
                           if (!overwrite)
                             return SmallVector<Value>{sum};
                           return SmallVector<Value>{arith::SelectOp::create(
                               b, l, overwrite, args[1], sum)};
                         })
            .front();
    if (updated.getType() != op.getAccumulationBufferOut().getType())
      updated = tensor::CastOp::create(
          rewriter, loc, op.getAccumulationBufferOut().getType(), updated);
    auto flagType = cast<RankedTensorType>(op.getUpdatedFlag().getType());
    Value flag = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(flagType, true));
    rewriter.replaceOp(op, {flag, updated});
    return success();
  }
};

} // namespace

void populateInPlaceAccumulatorLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerInPlaceAccumulatorV2>(patterns.getContext());
}

} // namespace odt::codegen
