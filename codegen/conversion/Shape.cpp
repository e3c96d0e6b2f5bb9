//===- Shape.cpp - onnx.Shape and onnx.Size -> tensor.from_elements -------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerShape : OpConversionPattern<onnx::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getShape().getType());
    auto [start, end] = op.getDimRange();
    SmallVector<Value> dims;
    for (int64_t d = start; d < end; ++d)
      dims.push_back(castFromIndex(
          rewriter, loc, dimValue(rewriter, loc, adaptor.getData(), d),
          type.getElementType()));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type, dims);
    return success();
  }
};

struct LowerSize : OpConversionPattern<onnx::SizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getSize().getType());
    Value count = castFromIndex(rewriter, loc,
                                elementCount(rewriter, loc, adaptor.getData()),
                                type.getElementType());
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type,
                                                        ValueRange{count});
    return success();
  }
};

} // namespace

void populateShapeOpLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerShape, LowerSize>(patterns.getContext());
}

} // namespace odt::codegen
