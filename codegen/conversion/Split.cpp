//===- Split.cpp - onnx.Split -> tensor.extract_slice ---------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSplit : OpConversionPattern<onnx::SplitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t axis = positiveAxis(op.getAxis(), rank);
    int64_t parts = op.getNumResults();
    Value dim = dimValue(rewriter, loc, input, axis);

    // The size of each part along the axis.
    SmallVector<Value> partSizes;
    if (!onnx::isNoValue(adaptor.getSplit())) {
      for (int64_t i = 0; i < parts; ++i)
        partSizes.push_back(extractIndex(rewriter, loc, adaptor.getSplit(), i));
    } else {
      Value count = indexConstant(rewriter, loc, parts);
      // Opset 18's num_outputs: ceil(dim / n) each, the last what is left;
      // before: equal parts.
      Value chunk = op.getNumOutputs() ? ceilDivIndex(rewriter, loc, dim, count)
                                       : divIndex(rewriter, loc, dim, count);
      for (int64_t i = 0; i + 1 < parts; ++i)
        partSizes.push_back(chunk);
      partSizes.push_back(subIndex(
          rewriter, loc, dim,
          mulIndex(rewriter, loc, chunk, indexConstant(rewriter, loc, parts - 1))));
    }

    SmallVector<Value> results;
    Value offset = indexConstant(rewriter, loc, 0);
    for (int64_t i = 0; i < parts; ++i) {
      auto type = cast<RankedTensorType>(op.getResult(i).getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = toFoldResult(offset);
      SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
        return d == axis ? partSizes[i] : dimValue(rewriter, loc, input, d);
      });
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      // An empty part reads nothing (its offset may be the dim's size).
      Value slice =
          llvm::is_contained(type.getShape(), 0)
              ? createEmpty(rewriter, loc, sizes, type.getElementType())
              : tensor::ExtractSliceOp::create(rewriter, loc, input, offsets,
                                               sizes, strides)
                    .getResult();
      results.push_back(castTensor(rewriter, loc, slice, type));
      offset = addIndex(rewriter, loc, offset, partSizes[i]);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateSplitLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSplit>(patterns.getContext());
}

} // namespace odt::codegen
