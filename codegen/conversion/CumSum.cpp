//===- CumSum.cpp - onnx.CumSum -> linalg ---------------------------------===//
//
// y[.., i, ..] = sum over j of x[.., j, ..] where j <= i (j < i exclusive;
// j >= i, j > i reversed): one linalg.generic with an extra reduction loop j
// along the axis, quadratic in the axis length but free of loop-carried
// dependences. float16/bfloat16 accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerCumSum : OpConversionPattern<onnx::CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> axis = op.getConstantAxis();
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "the axis is not a constant");
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t rank = xType.getRank();
    Type elementType = xType.getElementType();
    Numeric numeric = Numeric::of(elementType);
    Numeric compute = numeric;
    compute.type = getAccumulatorType(numeric.type);
    arith::CmpIPredicate predicate;
    if (op.getReverse())
      predicate = op.getExclusive() ? arith::CmpIPredicate::sgt
                                    : arith::CmpIPredicate::sge;
    else
      predicate = op.getExclusive() ? arith::CmpIPredicate::slt
                                    : arith::CmpIPredicate::sle;

    SmallVector<AffineExpr> outerExprs, alongJExprs;
    for (int64_t i = 0; i < rank; ++i) {
      outerExprs.push_back(getAffineDimExpr(i, context));
      alongJExprs.push_back(getAffineDimExpr(i == *axis ? rank : i, context));
    }
    AffineMap outer = AffineMap::get(rank + 1, 0, outerExprs, context);
    AffineMap alongJ = AffineMap::get(rank + 1, 0, alongJExprs, context);
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    iterators.push_back(utils::IteratorType::reduction);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, x);
    Value init = createFilled(rewriter, loc, sizes, compute.type, 0.0);
    Value sums =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{x},
            ValueRange{init}, SmallVector<AffineMap>{alongJ, outer}, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value value = readAs(b, l, args[0], elementType, compute);
              Value j = linalg::IndexOp::create(b, l, rank);
              Value i = linalg::IndexOp::create(b, l, *axis);
              Value included = arith::CmpIOp::create(b, l, predicate, j, i);
              Value sum = createAdd(b, l, args[1], value);
              linalg::YieldOp::create(
                  b, l,
                  Value(arith::SelectOp::create(b, l, included, sum, args[1])));
            })
            .getResult(0);
    Value y = convertTensor(rewriter, loc, sums, elementType);
    rewriter.replaceOp(op, castTensor(rewriter, loc, y, op.getY().getType()));
    return success();
  }
};

} // namespace

void populateCumSumLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCumSum>(patterns.getContext());
}

} // namespace odt::codegen
