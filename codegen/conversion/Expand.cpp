//===- Expand.cpp - onnx.Expand -> broadcasting linalg.generic ------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerExpand : OpConversionPattern<onnx::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    int64_t offset = rank - inputType.getRank();
    int64_t shapeOffset =
        rank - cast<RankedTensorType>(adaptor.getShape().getType()).getDimSize(0);
    // A dynamic result dim is the input's (a dim that is not a static 1 is
    // not broadcast, see broadcastOperand) or else the shape operand's.
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      int64_t inputDim = d - offset;
      if (inputDim >= 0 && inputType.getDimSize(inputDim) != 1)
        return dimValue(rewriter, loc, input, inputDim);
      return extractIndex(rewriter, loc, adaptor.getShape(), d - shapeOffset);
    });
    Value init = createEmpty(rewriter, loc, sizes, type.getElementType());
    Value result =
        buildElementwise(rewriter, loc, {input}, {init},
                         [](OpBuilder &, Location, ValueRange args) {
                           return SmallVector<Value>{args[0]};
                         })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateExpandLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerExpand>(patterns.getContext());
}

} // namespace odt::codegen
