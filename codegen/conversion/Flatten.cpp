//===- Flatten.cpp - onnx.Flatten -> tensor.collapse_shape ----------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerFlatten : OpConversionPattern<onnx::FlattenOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t axis = positiveAxis(op.getAxis(), rank);
    if (axis > 0 && axis < rank) {
      ReassociationIndices outer, inner;
      for (int64_t d = 0; d < rank; ++d)
        (d < axis ? outer : inner).push_back(d);
      SmallVector<ReassociationIndices> groups = {outer, inner};
      auto collapsedType = tensor::CollapseShapeOp::inferCollapsedType(
          inputType, groups);
      Value collapsed = tensor::CollapseShapeOp::create(
          rewriter, loc, collapsedType, input, groups);
      rewriter.replaceOp(op, castTensor(rewriter, loc, collapsed, type));
      return success();
    }
    // All dims on one side: [1, N] or [N, 1].
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t) {
      return elementCount(rewriter, loc, input);
    });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, input, type, sizes));
    return success();
  }
};

} // namespace

void populateFlattenLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerFlatten>(patterns.getContext());
}

} // namespace odt::codegen
