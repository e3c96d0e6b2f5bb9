//===- ReduceSum.cpp - onnx.ReduceSum -> linalg ---------------------------===//

#include "codegen/lowering/Common.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerReduceSum : OpConversionPattern<onnx::ReduceSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ReduceSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<SmallVector<int64_t>> axes = op.getConstantAxes();
    if (failed(axes))
      return rewriter.notifyMatchFailure(op, "axes are not constant");
    auto resultType = cast<RankedTensorType>(op.getReduced().getType());
    Value data = adaptor.getData();
    if (axes->empty()) {
      rewriter.replaceOp(op, data);
      return success();
    }
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = dataType.getRank();
    SmallVector<OpFoldResult> dataSizes = getSizes(rewriter, loc, data);
    SmallVector<OpFoldResult> keptSizes;
    SmallVector<AffineExpr> outputExprs;
    SmallVector<utils::IteratorType> iterators;
    MLIRContext *context = rewriter.getContext();
    for (int64_t i = 0; i < rank; ++i) {
      if (llvm::is_contained(*axes, i)) {
        iterators.push_back(utils::IteratorType::reduction);
        continue;
      }
      iterators.push_back(utils::IteratorType::parallel);
      keptSizes.push_back(dataSizes[i]);
      outputExprs.push_back(getAffineDimExpr(i, context));
    }
    Type elementType = dataType.getElementType();
    Value init = createFilled(rewriter, loc, keptSizes, elementType, 0.0);
    SmallVector<AffineMap> maps = {identityMap(context, rank),
                                   AffineMap::get(rank, 0, outputExprs, context)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{data},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l,
                                  Value(arith::AddFOp::create(b, l, args[1], args[0])));
        });
    Value reduced = generic.getResult(0);
    if (op.getKeepdims()) {
      // Reinsert the reduced dims as 1s: each kept dim absorbs the unit dims
      // before it; trailing unit dims join the last group.
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      SmallVector<OpFoldResult> expandedSizes;
      for (int64_t i = 0; i < rank; ++i) {
        bool isReduced = llvm::is_contained(*axes, i);
        expandedSizes.push_back(isReduced ? OpFoldResult(rewriter.getIndexAttr(1))
                                          : dataSizes[i]);
        pending.push_back(i);
        if (!isReduced) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!groups.empty())
        groups.back().append(pending.begin(), pending.end());
      reduced = tensor::ExpandShapeOp::create(rewriter, loc, resultType, reduced,
                                              groups, expandedSizes);
    }
    if (reduced.getType() != resultType)
      reduced = tensor::CastOp::create(rewriter, loc, resultType, reduced);
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

} // namespace

void populateReduceSumLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduceSum>(patterns.getContext());
}

} // namespace odt::codegen
