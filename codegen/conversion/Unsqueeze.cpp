//===- Unsqueeze.cpp - onnx.Unsqueeze -> tensor.expand_shape --------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerUnsqueeze : OpConversionPattern<onnx::UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto type = cast<RankedTensorType>(op.getExpanded().getType());
    std::optional<SmallVector<int64_t>> axes =
        getConstantInts(adaptor.getAxes());
    if (!axes)
      return rewriter.notifyMatchFailure(op, "axes are not constant");
    SmallVector<bool> unit(type.getRank(), false);
    for (int64_t axis : *axes)
      unit[axis < 0 ? axis + type.getRank() : axis] = true;
    SmallVector<OpFoldResult> sizes;
    int64_t next = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (unit[d]) {
        sizes.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      sizes.push_back(
          type.isDynamicDim(d)
              ? OpFoldResult(dimValue(rewriter, loc, data, next))
              : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
      ++next;
    }
    // The expand needs a source type whose dims agree with the result's.
    SmallVector<int64_t> sourceShape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!unit[d])
        sourceShape.push_back(type.getDimSize(d));
    data = castTensor(
        rewriter, loc, data,
        RankedTensorType::get(sourceShape, type.getElementType()));
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, type, data, unitDimGroups(unit), sizes);
    rewriter.replaceOp(op, expanded);
    return success();
  }
};

} // namespace

void populateUnsqueezeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerUnsqueeze>(patterns.getContext());
}

} // namespace odt::codegen
