//===- MaxPool.cpp - onnx.MaxPool -> linalg -------------------------------===//
//
// X is padded with the lowest value (-inf; the smallest integer; 0 for
// unsigned) by the window's pads plus, with ceil_mode, the overhang of the
// last window. Y alone: linalg.pooling_ncw_max / pooling_nchw_max (else a
// linalg.generic for 3-D and unsigned). With Indices: one linalg.generic
// with two outputs (value, flat index into X); a position in the padding is
// never taken, and among equal values the lowest index wins whatever the
// loop order. Unsigned tensors are computed as signless (tensor.bitcast)
// with unsigned comparisons.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/NNUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerMaxPool : OpConversionPattern<onnx::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    auto indicesType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!resultType || !indicesType || !xType)
      return rewriter.notifyMatchFailure(op, "operands must be ranked");
    int64_t spatialRank = xType.getRank() - 2;
    FailureOr<SmallVector<int64_t>> kernel =
        onnx::readKernelShape(op, spatialRank, std::nullopt);
    if (failed(kernel))
      return failure();
    FailureOr<onnx::WindowAttrs> attrs = onnx::readWindowAttrs(op, *kernel);
    if (failed(attrs))
      return failure();

    Type elementType = xType.getElementType();
    bool isUnsigned = elementType.isUnsignedInteger();
    Type computeType = getComputeType(elementType);
    if (!isa<FloatType>(elementType))
      elementType = computeType; // signless from here on
    Value x = convertTensor(rewriter, loc, adaptor.getX(), elementType);
    Value lowest = createLowest(rewriter, loc, elementType, isUnsigned);

    SmallVector<IndexValue> xSizes = getIndexSizes(rewriter, loc, x);
    IndexValue zero = IndexValue::constant(rewriter, loc, 0);
    SmallVector<OpFoldResult> low(2, zero.get()), high(2, zero.get());
    SmallVector<OpFoldResult> outSizes = {xSizes[0].get(), xSizes[1].get()};
    SmallVector<IndexValue> padsBegin;
    for (int64_t i = 0; i < spatialRank; ++i) {
      onnx::AxisWindow<IndexValue> window =
          onnx::forwardWindow(*attrs, i, xSizes[2 + i]);
      IndexValue end = window.padEnd;
      if (attrs->ceilMode)
        end = end + onnx::windowOverhang(*attrs, i, xSizes[2 + i], window);
      low.push_back(window.padBegin.get());
      high.push_back(end.get());
      outSizes.push_back(maxOf(window.out, 0).get());
      padsBegin.push_back(window.padBegin);
    }
    Value padded = padTensor(rewriter, loc, x, low, high, lowest);
    Value values = createEmpty(rewriter, loc, outSizes, elementType);
    values = linalg::FillOp::create(rewriter, loc, ValueRange{lowest},
                                    ValueRange{values})
                 .getResult(0);

    Value y, indices;
    if (op.getIndices().use_empty()) {
      y = buildPooling(rewriter, loc,
                       isUnsigned ? PoolKind::MaxUnsigned : PoolKind::Max,
                       padded, values, attrs->kernel, attrs->strides,
                       attrs->dilations);
      // Nothing reads it: an empty tensor that canonicalization drops.
      indices = castTensor(
          rewriter, loc,
          createEmpty(rewriter, loc, outSizes, rewriter.getI64Type()),
          indicesType);
    } else {
      std::tie(y, indices) =
          buildWithIndices(rewriter, loc, op, *attrs, padded, values,
                           outSizes, xSizes, padsBegin, isUnsigned);
      indices = castTensor(rewriter, loc, indices, indicesType);
    }
    y = convertTensor(rewriter, loc, y, resultType.getElementType());
    rewriter.replaceOp(op, {castTensor(rewriter, loc, y, resultType), indices});
    return success();
  }

  /// One linalg.generic over (n, c, o..., k...) producing the max and its
  /// flat index into X.
  static std::pair<Value, Value>
  buildWithIndices(OpBuilder &b, Location loc, onnx::MaxPoolOp op,
                   const onnx::WindowAttrs &attrs, Value padded, Value values,
                   ArrayRef<OpFoldResult> outSizes,
                   ArrayRef<IndexValue> xSizes,
                   ArrayRef<IndexValue> padsBegin, bool isUnsigned) {
    MLIRContext *context = b.getContext();
    unsigned rank = attrs.getSpatialRank();
    Type i64 = b.getI64Type();
    Value noIndex = arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(std::numeric_limits<int64_t>::max()));
    Value indexInit = linalg::FillOp::create(
                          b, loc, ValueRange{noIndex},
                          ValueRange{createEmpty(b, loc, outSizes, i64)})
                          .getResult(0);
    // Materialized outside the loops: sizes and pads the body reads.
    SmallVector<Value> sizes = llvm::map_to_vector(
        xSizes, [](const IndexValue &v) { return v.materialize(); });
    SmallVector<Value> pads = llvm::map_to_vector(
        padsBegin, [](const IndexValue &v) { return v.materialize(); });

    unsigned numLoops = 2 + 2 * rank;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    SmallVector<AffineExpr> inputExprs = {d(0), d(1)};
    for (unsigned i = 0; i < rank; ++i)
      inputExprs.push_back(d(2 + i) * attrs.strides[i] +
                           d(2 + rank + i) * attrs.dilations[i]);
    AffineMap outMap =
        AffineMap::getMultiDimIdentityMap(numLoops, context).getMajorSubMap(2 + rank);
    // The window operand (an empty tensor read by k1..kn) gives linalg the
    // reduction loops' bounds.
    Value window = createEmpty(
        b, loc, getAsIndexOpFoldResult(context, attrs.kernel),
        cast<RankedTensorType>(padded.getType()).getElementType());
    AffineMap windowMap =
        AffineMap::getMultiDimIdentityMap(numLoops, context).getMinorSubMap(rank);
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inputExprs, context),
                                   windowMap, outMap, outMap};
    SmallVector<utils::IteratorType> iterators(2 + rank,
                                               utils::IteratorType::parallel);
    iterators.append(rank, utils::IteratorType::reduction);
    bool columnMajor = op.getStorageOrder() == 1;

    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{values.getType(), indexInit.getType()},
        ValueRange{padded, window}, ValueRange{values, indexInit}, maps,
        iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value x = args[0], best = args[2], bestIndex = args[3];
          auto index = [&](unsigned dim) {
            return Value(linalg::IndexOp::create(nb, l, dim));
          };
          Value zeroIdx = arith::ConstantIndexOp::create(nb, l, 0);
          Value inside = arith::ConstantIntOp::create(nb, l, 1, 1);
          // Position in X of each spatial axis; whether all are inside.
          SmallVector<Value> positions;
          for (unsigned i = 0; i < rank; ++i) {
            Value o = arith::MulIOp::create(
                nb, l, index(2 + i),
                arith::ConstantIndexOp::create(nb, l, attrs.strides[i]));
            Value k = arith::MulIOp::create(
                nb, l, index(2 + rank + i),
                arith::ConstantIndexOp::create(nb, l, attrs.dilations[i]));
            Value pos = arith::SubIOp::create(
                nb, l, arith::AddIOp::create(nb, l, o, k), pads[i]);
            Value aboveZero = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::sge, pos, zeroIdx);
            Value belowSize = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::slt, pos, sizes[2 + i]);
            inside = arith::AndIOp::create(
                nb, l, inside,
                arith::AndIOp::create(nb, l, aboveZero, belowSize));
            positions.push_back(pos);
          }
          // Flat index: (n * C + c) * prod(spatial) + spatial offset.
          Value flat = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, index(0), sizes[1]),
              index(1));
          Value spatial = zeroIdx;
          for (unsigned step = 0; step < rank; ++step) {
            unsigned i = columnMajor ? rank - 1 - step : step;
            spatial = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, spatial, sizes[2 + i]),
                positions[i]);
          }
          for (unsigned i = 0; i < rank; ++i)
            flat = arith::MulIOp::create(nb, l, flat, sizes[2 + i]);
          flat = arith::AddIOp::create(nb, l, flat, spatial);
          Value flat64 = arith::IndexCastOp::create(nb, l, i64, flat);

          Value greater, equal;
          if (isa<FloatType>(x.getType())) {
            greater = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                            x, best);
            equal = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                          x, best);
          } else {
            greater = arith::CmpIOp::create(
                nb, l,
                isUnsigned ? arith::CmpIPredicate::ugt
                           : arith::CmpIPredicate::sgt,
                x, best);
            equal = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, x,
                                          best);
          }
          Value earlier = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::slt, flat64, bestIndex);
          Value better = arith::OrIOp::create(
              nb, l, greater, arith::AndIOp::create(nb, l, equal, earlier));
          Value take = arith::AndIOp::create(nb, l, inside, better);
          linalg::YieldOp::create(
              nb, l,
              ValueRange{arith::SelectOp::create(nb, l, take, x, best),
                         arith::SelectOp::create(nb, l, take, flat64,
                                                 bestIndex)});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }
};

} // namespace

void populateMaxPoolLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMaxPool>(patterns.getContext());
}

} // namespace odt::codegen
