//===- Transpose.cpp - onnx.Transpose -> linalg.transpose -----------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerTranspose : OpConversionPattern<onnx::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto type = cast<RankedTensorType>(op.getTransposed().getType());
    SmallVector<int64_t> perm = op.getPermutation();
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      return dimValue(rewriter, loc, data, perm[d]);
    });
    Value init = createEmpty(rewriter, loc, sizes, type.getElementType());
    Value transposed =
        linalg::TransposeOp::create(rewriter, loc, data, init, perm)
            .getResult()
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, transposed, type));
    return success();
  }
};

} // namespace

void populateTransposeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTranspose>(patterns.getContext());
}

} // namespace odt::codegen
