//===- ScatterElements.cpp - onnx.ScatterElements -> linalg.generic -------===//
//
// Written as a gather so it stays a linalg op: over (update coordinates, q)
// with q running along the axis of the output, out[u with u[axis] = q]
// combines updates[u] wherever indices[u] (counted from the end when
// negative) is q. The update's axis coordinate is a reduction dim, walked in
// order, so with duplicate indices the last update wins (reduction none) as
// in ONNX's reference. An index outside the dim matches no q: nothing is
// written out of bounds. Data dims beyond the updates' are left untouched
// (the generic runs on a slice of data, inserted back).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerScatterElements : OpConversionPattern<onnx::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    int64_t axis = positiveAxis(op.getAxis(), rank);
    StringRef reduction = op.getReduction();
    data = castTensor(rewriter, loc, data, type);
    Value axisSize = dimValue(rewriter, loc, data, axis);

    // The part of data the updates reach: their dims, the whole axis.
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(d == axis ? getSizes(rewriter, loc, data)[d]
                                : getSizes(rewriter, loc, updates)[d]);
    Value part = tensor::ExtractSliceOp::create(rewriter, loc, data, offsets,
                                                sizes, strides);

    // Iteration space: dims 0..rank-1 are the update coordinates (the axis
    // one a reduction), dim `rank` is q.
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> outputExprs;
    for (int64_t d = 0; d < rank; ++d)
      outputExprs.push_back(getAffineDimExpr(d == axis ? rank : d, context));
    AffineMap updateMap = AffineMap::getMultiDimIdentityMap(rank + 1, context)
                              .getMajorSubMap(rank);
    SmallVector<AffineMap> maps = {updateMap, updateMap,
                                   AffineMap::get(rank + 1, 0, outputExprs,
                                                  context)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank + 1);
    iterators[axis] = utils::IteratorType::reduction;
    bool isFloat = isa<FloatType>(elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{part.getType()}, ValueRange{indices, updates},
        ValueRange{part}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value zero = indexConstant(b, l, 0);
          Value index = castToIndex(b, l, args[0]);
          index = selectValue(
              b, l, cmpIndex(b, l, arith::CmpIPredicate::slt, index, zero),
              addIndex(b, l, index, axisSize), index);
          Value q = linalg::IndexOp::create(b, l, rank);
          Value hit = cmpIndex(b, l, arith::CmpIPredicate::eq, index, q);
          Value update = args[1], current = args[2];
          Value combined = update;
          if (reduction == "add")
            combined = isFloat ? Value(arith::AddFOp::create(b, l, current, update))
                               : Value(arith::AddIOp::create(b, l, current, update));
          else if (reduction == "mul")
            combined = isFloat ? Value(arith::MulFOp::create(b, l, current, update))
                               : Value(arith::MulIOp::create(b, l, current, update));
          else if (reduction == "max")
            combined =
                isFloat ? Value(arith::MaximumFOp::create(b, l, current, update))
                : elementType.isUnsignedInteger()
                    ? Value(arith::MaxUIOp::create(b, l, current, update))
                    : Value(arith::MaxSIOp::create(b, l, current, update));
          else if (reduction == "min")
            combined =
                isFloat ? Value(arith::MinimumFOp::create(b, l, current, update))
                : elementType.isUnsignedInteger()
                    ? Value(arith::MinUIOp::create(b, l, current, update))
                    : Value(arith::MinSIOp::create(b, l, current, update));
          linalg::YieldOp::create(
              b, l, arith::SelectOp::create(b, l, hit, combined, current)
                        .getResult());
        });
    Value result = tensor::InsertSliceOp::create(
        rewriter, loc, generic.getResult(0), data, offsets, sizes, strides);
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateScatterElementsLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerScatterElements>(patterns.getContext());
}

} // namespace odt::codegen
