//===- ArgMax.cpp - onnx.ArgMax -> linalg ---------------------------------===//
//
// One linalg.generic reducing the axis into two accumulators, the best value
// and its index (linalg.index). A candidate wins if it is larger, or equal
// with a lower index (a higher one with select_last_index), so the result
// does not depend on the order the reduction visits elements. NaN counts as
// larger than any number (numpy's argmax). keepdims = 1 re-inserts the axis
// as a unit dim.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerArgMax : OpConversionPattern<onnx::ArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ArgMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = dataType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    SmallVector<int64_t> axes = {axis};
    Type elementType = dataType.getElementType();
    Numeric numeric = Numeric::of(elementType);
    bool last = op.getSelectLastIndex() != 0;
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, data);
    SmallVector<OpFoldResult> kept = keptSizes(sizes, axes);

    // The initial best: the lowest value at an index every element beats
    // on a tie (past the end for the first maximum, -1 for the last).
    Value lowest = createLowest(rewriter, loc, numeric);
    Value valueInit = linalg::FillOp::create(
                          rewriter, loc, ValueRange{lowest},
                          ValueRange{createEmpty(rewriter, loc, kept,
                                                 numeric.type)})
                          .getResult(0);
    Type i64 = rewriter.getI64Type();
    Value indexInit;
    if (last) {
      indexInit = createFilled(rewriter, loc, kept, i64, -1.0);
    } else {
      Value size = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]);
      Value sizeI64 = arith::IndexCastOp::create(rewriter, loc, i64, size);
      indexInit = linalg::FillOp::create(
                      rewriter, loc, ValueRange{sizeI64},
                      ValueRange{createEmpty(rewriter, loc, kept, i64)})
                      .getResult(0);
    }
    ValueRange results = buildReduction(
        rewriter, loc, {data}, axes, {valueInit, indexInit},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = toSignless(b, l, args[0]);
          Value best = args[1], bestIndex = args[2];
          Value index = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value greater, equal;
          if (numeric.isFloat()) {
            // NaN is the largest: x > best if x is NaN and best is not.
            Value xNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO,
                                               x, x);
            Value bestNaN = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::UNO, best, best);
            Value notBestNaN = arith::XOrIOp::create(
                b, l, bestNaN,
                arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
            greater = arith::SelectOp::create(
                b, l, xNaN, notBestNaN,
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                      best));
            equal = arith::OrIOp::create(
                b, l, arith::AndIOp::create(b, l, xNaN, bestNaN),
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, x,
                                      best));
          } else {
            greater = arith::CmpIOp::create(
                b, l,
                numeric.isUnsigned ? arith::CmpIPredicate::ugt
                                   : arith::CmpIPredicate::sgt,
                x, best);
            equal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x,
                                          best);
          }
          Value wins = arith::CmpIOp::create(
              b, l,
              last ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
              index, bestIndex);
          Value better = arith::OrIOp::create(
              b, l, greater, arith::AndIOp::create(b, l, equal, wins));
          return SmallVector<Value>{
              arith::SelectOp::create(b, l, better, x, best),
              arith::SelectOp::create(b, l, better, index, bestIndex)};
        });
    Value indices = results[1];
    if (op.getKeepdims())
      indices = expandReducedDims(rewriter, loc, indices, axes, rank, sizes);
    rewriter.replaceOp(
        op, castTensor(rewriter, loc, indices, op.getReduced().getType()));
    return success();
  }
};

} // namespace

void populateArgMaxLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerArgMax>(patterns.getContext());
}

} // namespace odt::codegen
