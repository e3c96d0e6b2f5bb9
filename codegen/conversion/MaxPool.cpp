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
      y = buildPooling(
          rewriter, loc, isUnsigned ? PoolKind::MaxUnsigned : PoolKind::Max,
          padded, values, attrs->kernel, attrs->strides, attrs->dilations);
      // Nothing reads it: an empty tensor that canonicalization drops.
      indices = castTensor(
          rewriter, loc,
          createEmpty(rewriter, loc, outSizes, rewriter.getI64Type()),
          indicesType);
    } else {
      std::tie(y, indices) =
          buildWithIndices(rewriter, loc, op, *attrs, padded, values, outSizes,
                           xSizes, padsBegin, isUnsigned);
      indices = castTensor(rewriter, loc, indices, indicesType);
    }
    y = convertTensor(rewriter, loc, y, resultType.getElementType());
    rewriter.replaceOp(op, {castTensor(rewriter, loc, y, resultType), indices});
    return success();
  }

  /// The most window taps buildWithIndices unrolls (a 4x4 window).
  static constexpr int64_t kMaxUnrolledTaps = 16;

  /// One linalg.generic producing the max and its flat index into X: over
  /// (n, c, o...) with the window's taps unrolled in the body (each tap an
  /// input reading the padded X at its offset, in the window's order), or,
  /// for windows of more than kMaxUnrolledTaps taps, over (n, c, o..., k...)
  /// with the window as reduction loops. Unrolled, each output is written
  /// once and the loops are all parallel, so the output row is the
  /// innermost loop and vectorizes; as reduction loops, the max and its
  /// index were read and written back at every tap, one element at a time
  /// (LeNet-5's two max pools were 16% of its training step). The taps are
  /// compared in the same order with the same rule, so the results are the
  /// same.
  static std::pair<Value, Value>
  buildWithIndices(OpBuilder &b, Location loc, onnx::MaxPoolOp op,
                   const onnx::WindowAttrs &attrs, Value padded, Value values,
                   ArrayRef<OpFoldResult> outSizes, ArrayRef<IndexValue> xSizes,
                   ArrayRef<IndexValue> padsBegin, bool isUnsigned) {
    MLIRContext *context = b.getContext();
    unsigned rank = attrs.getSpatialRank();
    Type i64 = b.getI64Type();
    Value noIndex = arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(std::numeric_limits<int64_t>::max()));
    Value indexInit =
        linalg::FillOp::create(b, loc, ValueRange{noIndex},
                               ValueRange{createEmpty(b, loc, outSizes, i64)})
            .getResult(0);
    // Materialized outside the loops: sizes and pads the body reads.
    SmallVector<Value> sizes = llvm::map_to_vector(
        xSizes, [](const IndexValue &v) { return v.materialize(); });
    SmallVector<Value> pads = llvm::map_to_vector(
        padsBegin, [](const IndexValue &v) { return v.materialize(); });

    int64_t taps = 1;
    for (int64_t size : attrs.kernel)
      taps *= size;
    bool unrolled = taps <= kMaxUnrolledTaps;
    unsigned numLoops = unrolled ? 2 + rank : 2 + 2 * rank;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    AffineMap outMap = AffineMap::getMultiDimIdentityMap(numLoops, context)
                           .getMajorSubMap(2 + rank);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    // The window position of each tap, in the window's order (unrolled), or
    // of the one tap the reduction loops are at (kernel = {}).
    SmallVector<SmallVector<int64_t>> tapOffsets;
    if (unrolled) {
      for (int64_t tap = 0; tap < taps; ++tap) {
        SmallVector<int64_t> offset(rank);
        for (int64_t i = rank - 1, rest = tap; i >= 0; --i) {
          offset[i] = rest % attrs.kernel[i];
          rest /= attrs.kernel[i];
        }
        SmallVector<AffineExpr> exprs = {d(0), d(1)};
        for (unsigned i = 0; i < rank; ++i)
          exprs.push_back(d(2 + i) * attrs.strides[i] +
                          offset[i] * attrs.dilations[i]);
        inputs.push_back(padded);
        maps.push_back(AffineMap::get(numLoops, 0, exprs, context));
        tapOffsets.push_back(offset);
      }
    } else {
      SmallVector<AffineExpr> inputExprs = {d(0), d(1)};
      for (unsigned i = 0; i < rank; ++i)
        inputExprs.push_back(d(2 + i) * attrs.strides[i] +
                             d(2 + rank + i) * attrs.dilations[i]);
      // The window operand (an empty tensor read by k1..kn) gives linalg
      // the reduction loops' bounds.
      Value window = createEmpty(
          b, loc, getAsIndexOpFoldResult(context, attrs.kernel),
          cast<RankedTensorType>(padded.getType()).getElementType());
      inputs = {padded, window};
      maps = {AffineMap::get(numLoops, 0, inputExprs, context),
              AffineMap::getMultiDimIdentityMap(numLoops, context)
                  .getMinorSubMap(rank)};
      tapOffsets.push_back({});
    }
    maps.append({outMap, outMap});
    SmallVector<utils::IteratorType> iterators(2 + rank,
                                               utils::IteratorType::parallel);
    if (!unrolled)
      iterators.append(rank, utils::IteratorType::reduction);
    bool columnMajor = op.getStorageOrder() == 1;

    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{values.getType(), indexInit.getType()}, inputs,
        ValueRange{values, indexInit}, maps, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value best = args[args.size() - 2], bestIndex = args.back();
          auto index = [&](unsigned dim) {
            return Value(linalg::IndexOp::create(nb, l, dim));
          };
          for (size_t tap = 0; tap < tapOffsets.size(); ++tap) {
            ArrayRef<int64_t> offset = tapOffsets[tap];
            Value x = args[unrolled ? tap : 0];
            // The window position along axis i: a constant tap offset, or
            // the reduction loop's index.
            auto windowIndex = [&](unsigned i) -> Value {
              return unrolled ? Value(arith::ConstantIndexOp::create(nb, l,
                                                                     offset[i]))
                              : index(2 + rank + i);
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
                  nb, l, windowIndex(i),
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
              equal = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, x,
                                            best);
            } else {
              greater =
                  arith::CmpIOp::create(nb, l,
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
            best = arith::SelectOp::create(nb, l, take, x, best);
            bestIndex = arith::SelectOp::create(nb, l, take, flat64, bestIndex);
          }
          linalg::YieldOp::create(nb, l, ValueRange{best, bestIndex});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }
};

} // namespace

void populateMaxPoolLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMaxPool>(patterns.getContext());
}

} // namespace odt::codegen
