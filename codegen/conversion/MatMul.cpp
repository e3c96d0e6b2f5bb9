//===- MatMul.cpp - onnx.MatMul -> linalg ---------------------------------===//
//
// numpy.matmul on linalg's named contractions where the shapes allow:
//   [M,K] x [K,N]: linalg.matmul; [K] x [K,N]: linalg.vecmat;
//   [M,K] x [K]: linalg.matvec; [K] x [K]: linalg.dot;
//   [b..,M,K] x [K,N]: the batch dims folded into M (collapse_shape), one
//     linalg.matmul, expand_shape back;
//   [b..,M,K] x [b..,K,N] with equal batch dims: the batch dims collapsed
//     into one, linalg.batch_matmul, expand_shape back.
// Anything else (batch dims that broadcast, 1-D operands against batches)
// is one linalg.generic whose maps read a broadcast dim (static 1) at 0.
// f16/bf16 accumulate in f32 and are truncated at the end.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/NNUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// Collapses dims [first, last] of `value` into one.
Value collapseRange(OpBuilder &b, Location loc, Value value, int64_t first,
                    int64_t last) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d > first && d <= last) {
      groups.back().push_back(d);
      continue;
    }
    groups.push_back({d});
  }
  if (groups.size() == static_cast<size_t>(type.getRank()))
    return value;
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

/// Expands dim `dim` of `value` into `sizes`.
Value expandDim(OpBuilder &b, Location loc, Value value, int64_t dim,
                ArrayRef<IndexValue> sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  if (sizes.size() == 1)
    return value;
  SmallVector<ReassociationIndices> groups;
  SmallVector<OpFoldResult> outSizes;
  SmallVector<int64_t> shape;
  SmallVector<IndexValue> current = getIndexSizes(b, loc, value);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    ReassociationIndices group;
    auto add = [&](const IndexValue &size) {
      group.push_back(outSizes.size());
      outSizes.push_back(size.get());
      shape.push_back(size.getConstant().value_or(ShapedType::kDynamic));
    };
    if (d == dim)
      for (const IndexValue &size : sizes)
        add(size);
    else
      add(current[d]);
    groups.push_back(group);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups, outSizes);
}

Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  Type type = acc.getType();
  x = convertScalar(b, loc, x, type);
  y = convertScalar(b, loc, y, type);
  if (isa<FloatType>(type))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

/// The general case: one linalg.generic over (batch..., m?, n?, k).
Value buildGenericMatMul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         Type accType) {
  MLIRContext *context = b.getContext();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t ra = lhsType.getRank(), rb = rhsType.getRank();
  int64_t batchA = std::max<int64_t>(ra - 2, 0);
  int64_t batchB = std::max<int64_t>(rb - 2, 0);
  int64_t batchRank = std::max(batchA, batchB);
  bool hasM = ra > 1, hasN = rb > 1;
  int64_t outRank = batchRank + hasM + hasN;
  int64_t numLoops = outRank + 1;
  unsigned mDim = batchRank, nDim = batchRank + hasM, kDim = outRank;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<IndexValue> sizesA = getIndexSizes(b, loc, lhs);
  SmallVector<IndexValue> sizesB = getIndexSizes(b, loc, rhs);

  // Batch dims: aligned to the trailing output batch dims; a static 1
  // against a dim that is not 1 broadcasts (read at 0).
  SmallVector<AffineExpr> exprsA, exprsB;
  SmallVector<OpFoldResult> outSizes;
  for (int64_t j = 0; j < batchRank; ++j) {
    int64_t ia = j - (batchRank - batchA), ib = j - (batchRank - batchB);
    int64_t dimA = ia >= 0 ? lhsType.getDimSize(ia) : 1;
    int64_t dimB = ib >= 0 ? rhsType.getDimSize(ib) : 1;
    bool broadcastA = dimA == 1 && dimB != 1;
    bool broadcastB = dimB == 1 && dimA != 1;
    if (ia >= 0)
      exprsA.push_back(broadcastA ? getAffineConstantExpr(0, context) : d(j));
    if (ib >= 0)
      exprsB.push_back(broadcastB ? getAffineConstantExpr(0, context) : d(j));
    outSizes.push_back(broadcastA || ia < 0 ? sizesB[ib].get()
                                            : sizesA[ia].get());
  }
  if (hasM) {
    exprsA.push_back(d(mDim));
    outSizes.push_back(sizesA[ra - 2].get());
  }
  exprsA.push_back(d(kDim));
  exprsB.push_back(d(kDim));
  if (hasN) {
    exprsB.push_back(d(nDim));
    outSizes.push_back(sizesB[rb - 1].get());
  }
  Value init = createFilled(b, loc, outSizes, accType, 0.0);
  SmallVector<AffineMap> maps = {
      AffineMap::get(numLoops, 0, exprsA, context),
      AffineMap::get(numLoops, 0, exprsB, context),
      AffineMap::getMultiDimIdentityMap(numLoops, context)
          .getMajorSubMap(outRank)};
  SmallVector<utils::IteratorType> iterators(outRank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, multiplyAdd(nb, l, args[0], args[1], args[2]));
             })
      .getResult(0);
}

struct LowerMatMul : OpConversionPattern<onnx::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    Value lhs = adaptor.getA(), rhs = adaptor.getB();
    auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
    auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
    if (!resultType || !lhsType || !rhsType)
      return rewriter.notifyMatchFailure(op, "operands must be ranked");
    Type elementType = lhsType.getElementType();
    Type accType = getComputeType(elementType);
    int64_t ra = lhsType.getRank(), rb = rhsType.getRank();
    SmallVector<IndexValue> sizesA = getIndexSizes(rewriter, loc, lhs);
    SmallVector<IndexValue> sizesB = getIndexSizes(rewriter, loc, rhs);
    auto filled = [&](ArrayRef<IndexValue> sizes) {
      return createFilled(rewriter, loc, toFoldResults(sizes), accType, 0.0);
    };

    Value result;
    if (ra == 2 && rb == 2) {
      Value init = filled({sizesA[0], sizesB[1]});
      result = linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                        ValueRange{lhs, rhs}, ValueRange{init})
                   .getResult(0);
    } else if (ra == 1 && rb == 2) {
      Value init = filled({sizesB[1]});
      result = linalg::VecmatOp::create(rewriter, loc, TypeRange{init.getType()},
                                        ValueRange{lhs, rhs}, ValueRange{init})
                   .getResult(0);
    } else if (ra == 2 && rb == 1) {
      Value init = filled({sizesA[0]});
      result = linalg::MatvecOp::create(rewriter, loc, TypeRange{init.getType()},
                                        ValueRange{lhs, rhs}, ValueRange{init})
                   .getResult(0);
    } else if (ra == 1 && rb == 1) {
      Value init = filled({});
      result = linalg::DotOp::create(rewriter, loc, TypeRange{init.getType()},
                                     ValueRange{lhs, rhs}, ValueRange{init})
                   .getResult(0);
    } else if (ra > 2 && rb == 2) {
      // [b.., M, K] -> [b..*M, K]; one matmul; back to [b.., M, N].
      Value flat = collapseRange(rewriter, loc, lhs, 0, ra - 2);
      SmallVector<IndexValue> rows(sizesA.begin(), sizesA.end() - 1);
      IndexValue rowCount = IndexValue::constant(rewriter, loc, 1);
      for (const IndexValue &size : rows)
        rowCount = rowCount * size;
      Value init = filled({rowCount, sizesB[1]});
      Value product =
          linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                   ValueRange{flat, rhs}, ValueRange{init})
              .getResult(0);
      result = expandDim(rewriter, loc, product, 0, rows);
    } else if (ra == rb && ra > 2 && sameBatchDims(lhsType, rhsType)) {
      // Batch dims collapsed into one; linalg.batch_matmul; expanded back.
      Value flatA = collapseRange(rewriter, loc, lhs, 0, ra - 3);
      Value flatB = collapseRange(rewriter, loc, rhs, 0, rb - 3);
      SmallVector<IndexValue> batch(sizesA.begin(), sizesA.end() - 2);
      IndexValue batchCount = IndexValue::constant(rewriter, loc, 1);
      for (const IndexValue &size : batch)
        batchCount = batchCount * size;
      Value init = filled({batchCount, sizesA[ra - 2], sizesB[rb - 1]});
      Value product =
          linalg::BatchMatmulOp::create(rewriter, loc,
                                        TypeRange{init.getType()},
                                        ValueRange{flatA, flatB},
                                        ValueRange{init})
              .getResult(0);
      result = expandDim(rewriter, loc, product, 0, batch);
    } else {
      result = buildGenericMatMul(rewriter, loc, lhs, rhs, accType);
    }
    result = convertTensor(rewriter, loc, result, elementType);
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }

  /// Equal batch dims: the same static size, or both dynamic (symbolic dims
  /// are assumed equal, as shape inference unified them).
  static bool sameBatchDims(RankedTensorType a, RankedTensorType b) {
    for (int64_t d = 0; d + 2 < a.getRank(); ++d)
      if (a.getDimSize(d) != b.getDimSize(d))
        return false;
    return true;
  }
};

} // namespace

void populateMatMulLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMatMul>(patterns.getContext());
}

} // namespace odt::codegen
