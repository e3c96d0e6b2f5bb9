//===- TopK.cpp - onnx.TopK -> linalg -------------------------------------===//
//
// Sorting without a sort: two linalg.generic ops.
//   1. rank[.., i, ..] = #{ j : x_j comes before x_i } along the axis, where
//      "before" is larger (smaller with largest = 0), or equal with a lower
//      index: a strict total order, so the ranks are a permutation and equal
//      values keep their input order, as ONNX requires.
//   2. For each output position k < K: the index j with rank_j == k (a
//      reduction over j selecting it) and its value.
// Quadratic along the axis, but fully parallel and free of data-dependent
// control flow. NaN counts as larger than any number. A constant K gives a
// static output dim, a computed one a dynamic dim read from K.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

/// Whether (a, ia) comes before (b, ib) in the output order.
Value comesBefore(OpBuilder &b, Location loc, Numeric numeric, bool largest,
                  Value x, Value ix, Value y, Value iy) {
  Value strictly, equal;
  if (numeric.isFloat()) {
    Value xNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value yNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
    Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    if (largest) {
      // x > y, with NaN the largest
      Value notYNaN = arith::XOrIOp::create(b, loc, yNaN, yes);
      strictly = arith::SelectOp::create(
          b, loc, xNaN, notYNaN,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y));
    } else {
      // x < y, with NaN the largest
      Value notXNaN = arith::XOrIOp::create(b, loc, xNaN, yes);
      strictly = arith::SelectOp::create(
          b, loc, yNaN, notXNaN,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y));
    }
    equal = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, xNaN, yNaN),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y));
  } else {
    arith::CmpIPredicate predicate =
        largest ? (numeric.isUnsigned ? arith::CmpIPredicate::ugt
                                      : arith::CmpIPredicate::sgt)
                : (numeric.isUnsigned ? arith::CmpIPredicate::ult
                                      : arith::CmpIPredicate::slt);
    strictly = arith::CmpIOp::create(b, loc, predicate, x, y);
    equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value earlier =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ix, iy);
  return arith::OrIOp::create(b, loc, strictly,
                              arith::AndIOp::create(b, loc, equal, earlier));
}

/// In a loop nest over rank + 1 dims, the map reading a rank-`rank` tensor
/// with its `axis` dim indexed by the extra (last) loop.
AffineMap axisFromLastLoop(MLIRContext *context, int64_t rank, int64_t axis) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    exprs.push_back(getAffineDimExpr(i == axis ? rank : i, context));
  return AffineMap::get(rank + 1, 0, exprs, context);
}

struct LowerTopK : OpConversionPattern<onnx::TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t rank = xType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    Type elementType = xType.getElementType();
    Numeric numeric = Numeric::of(elementType);
    bool largest = op.getLargest() != 0;
    Type i64 = rewriter.getI64Type();
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, x);

    // 1. ranks, over (d0 .. d_{rank-1}, j) with d_axis = i.
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    iterators.push_back(utils::IteratorType::reduction);
    SmallVector<AffineExpr> outerExprs;
    for (int64_t i = 0; i < rank; ++i)
      outerExprs.push_back(getAffineDimExpr(i, context));
    AffineMap outer = AffineMap::get(rank + 1, 0, outerExprs, context);
    AffineMap alongJ = axisFromLastLoop(context, rank, axis);
    Value rankInit = createFilled(rewriter, loc, sizes, i64, 0.0);
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{rankInit.getType()}, ValueRange{x, x},
            ValueRange{rankInit},
            SmallVector<AffineMap>{outer, alongJ, outer}, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value xi = toSignless(b, l, args[0]);
              Value xj = toSignless(b, l, args[1]);
              Value i = arith::IndexCastOp::create(
                  b, l, i64, linalg::IndexOp::create(b, l, axis));
              Value j = arith::IndexCastOp::create(
                  b, l, i64, linalg::IndexOp::create(b, l, rank));
              Value before =
                  comesBefore(b, l, numeric, largest, xj, j, xi, i);
              Value one = arith::ExtUIOp::create(b, l, i64, before);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddIOp::create(b, l, args[2], one)));
            })
            .getResult(0);

    // 2. indices and values, over (d0 .. d_{rank-1}, j) with d_axis = k.
    SmallVector<OpFoldResult> outSizes = sizes;
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    if (!valuesType.isDynamicDim(axis)) {
      outSizes[axis] = rewriter.getIndexAttr(valuesType.getDimSize(axis));
    } else {
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value k = tensor::ExtractOp::create(rewriter, loc, adaptor.getK(),
                                          ValueRange{zero});
      Value kIndex = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          arith::MaxSIOp::create(rewriter, loc, k,
                                 createScalar(rewriter, loc, i64, 0.0)));
      outSizes[axis] = kIndex;
    }
    Value indexInit = createFilled(rewriter, loc, outSizes, i64, 0.0);
    Value valueInit = createFilled(rewriter, loc, outSizes, numeric.type, 0.0);
    auto selected = linalg::GenericOp::create(
        rewriter, loc, TypeRange{indexInit.getType(), valueInit.getType()},
        ValueRange{ranks, x}, ValueRange{indexInit, valueInit},
        SmallVector<AffineMap>{alongJ, alongJ, outer, outer}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value k = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value j = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank));
          Value match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              args[0], k);
          Value xj = toSignless(b, l, args[1]);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, match, j, args[2]),
                         arith::SelectOp::create(b, l, match, xj, args[3])});
        });
    Value values = convertTensor(rewriter, loc, selected.getResult(1),
                                 elementType);
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, values, op.getValues().getType()),
             castTensor(rewriter, loc, selected.getResult(0),
                        op.getIndices().getType())});
    return success();
  }
};

} // namespace

void populateTopKLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTopK>(patterns.getContext());
}

} // namespace odt::codegen
