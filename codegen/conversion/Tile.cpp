//===- Tile.cpp - onnx.Tile -> linalg.generic + collapse_shape ------------===//
//
// The input broadcast to [r0, d0, r1, d1, ...] (a plain linalg.generic),
// collapsed to [r0 * d0, r1 * d1, ...].
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerTile : OpConversionPattern<onnx::TileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    MLIRContext *context = rewriter.getContext();
    SmallVector<OpFoldResult> wideSizes;
    SmallVector<ReassociationIndices> groups;
    SmallVector<AffineExpr> inputExprs;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = inputType.getDimSize(d);
      int64_t result = type.getDimSize(d);
      OpFoldResult repeat;
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(result) &&
          size != 0)
        repeat = rewriter.getIndexAttr(result / size);
      else
        repeat = toFoldResult(extractIndex(rewriter, loc, adaptor.getRepeats(), d));
      wideSizes.push_back(repeat);
      wideSizes.push_back(toFoldResult(dimValue(rewriter, loc, input, d)));
      groups.push_back({2 * d, 2 * d + 1});
      inputExprs.push_back(getAffineDimExpr(2 * d + 1, context));
    }
    Value init = createEmpty(rewriter, loc, wideSizes, type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{input},
        ValueRange{init},
        SmallVector<AffineMap>{AffineMap::get(2 * rank, 0, inputExprs, context),
                               identityMap(context, 2 * rank)},
        parallelIterators(2 * rank),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    Value wide = generic.getResult(0);
    Value result = wide;
    if (rank > 0) {
      auto collapsedType = tensor::CollapseShapeOp::inferCollapsedType(
          cast<RankedTensorType>(wide.getType()), groups);
      result = tensor::CollapseShapeOp::create(rewriter, loc, collapsedType,
                                               wide, groups);
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateTileLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTile>(patterns.getContext());
}

} // namespace odt::codegen
