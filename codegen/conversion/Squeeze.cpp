//===- Squeeze.cpp - onnx.Squeeze -> tensor.collapse_shape ----------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSqueeze : OpConversionPattern<onnx::SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto type = cast<RankedTensorType>(op.getSqueezed().getType());
    auto dataType = cast<RankedTensorType>(data.getType());
    // Which dims go: the axes, or every static 1.
    SmallVector<bool> unit(dataType.getRank(), false);
    if (onnx::isNoValue(adaptor.getAxes())) {
      for (int64_t d = 0; d < dataType.getRank(); ++d)
        unit[d] = dataType.getDimSize(d) == 1;
    } else {
      std::optional<SmallVector<int64_t>> axes =
          getConstantInts(adaptor.getAxes());
      if (!axes)
        return rewriter.notifyMatchFailure(op, "axes are not constant");
      for (int64_t axis : *axes)
        unit[axis < 0 ? axis + dataType.getRank() : axis] = true;
    }
    // Squeezed dims are 1: say so in the type the collapse reads.
    SmallVector<int64_t> refined(dataType.getShape());
    for (auto [d, isUnit] : llvm::enumerate(unit))
      if (isUnit)
        refined[d] = 1;
    data = castTensor(rewriter, loc, data,
                      RankedTensorType::get(refined, dataType.getElementType()));
    SmallVector<ReassociationIndices> groups = unitDimGroups(unit);
    auto collapsedType = tensor::CollapseShapeOp::inferCollapsedType(
        cast<RankedTensorType>(data.getType()), groups);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, collapsedType, data, groups);
    rewriter.replaceOp(op, castTensor(rewriter, loc, collapsed, type));
    return success();
  }
};

} // namespace

void populateSqueezeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSqueeze>(patterns.getContext());
}

} // namespace odt::codegen
