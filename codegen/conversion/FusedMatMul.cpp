//===- FusedMatMul.cpp - onnx.ms.FusedMatMul -> linalg --------------------===//
//
// One contraction generic over (batch..., m, n, k): Y[b, m, n] = sum_k
// A'[b, m, k] * B'[b, k, n], A' and B' read with their last two dims
// swapped when transA / transB; batch dims of static size 1 facing a larger
// dim are collapsed away (broadcast). alpha multiplies the sums (as GEMM's
// alpha does) when it is not 1.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerFusedMatMul : OpConversionPattern<onnx::FusedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::FusedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getY().getType());
    Type type = resultType.getElementType();
    int64_t rank = resultType.getRank();
    int64_t batch = rank - 2;
    int64_t domainRank = rank + 1; // (batch..., m, n, k)
    auto d = [&](int64_t i) { return getAffineDimExpr(i, context); };
    AffineExpr m = d(batch), n = d(batch + 1), k = d(batch + 2);
    SmallVector<OpFoldResult> domain(domainRank);

    // An operand read through its batch dims (aligned to the trailing batch
    // dims of Y) and its matrix dims (row, col).
    auto prepare = [&](Value operand, AffineExpr row, AffineExpr col,
                       bool transposed, AffineMap &map) -> Value {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t operandBatch = type.getRank() - 2;
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, operand);
      SmallVector<bool> keep;
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < operandBatch; ++i) {
        int64_t outDim = batch - operandBatch + i;
        bool broadcast = type.getDimSize(i) == 1 &&
                         resultType.getDimSize(outDim) != 1;
        keep.push_back(!broadcast);
        if (broadcast)
          continue;
        exprs.push_back(d(outDim));
        if (!domain[outDim])
          domain[outDim] = sizes[i];
      }
      keep.append({true, true});
      AffineExpr first = transposed ? col : row, second = transposed ? row : col;
      exprs.append({first, second});
      for (auto [expr, size] : {std::make_pair(first, sizes[operandBatch]),
                                std::make_pair(second, sizes[operandBatch + 1])}) {
        int64_t pos = cast<AffineDimExpr>(expr).getPosition();
        if (!domain[pos])
          domain[pos] = size;
      }
      map = AffineMap::get(domainRank, 0, exprs, context);
      return dropUnitDims(rewriter, loc, operand, keep);
    };
    AffineMap aMap, bMap;
    Value a = prepare(adaptor.getA(), m, k, op.getTransA() != 0, aMap);
    Value b = prepare(adaptor.getB(), k, n, op.getTransB() != 0, bMap);
    for (int64_t i = 0; i < batch; ++i)
      if (!domain[i])
        domain[i] = rewriter.getIndexAttr(1);
    Value product =
        sumOver(rewriter, loc, domain, {batch + 2}, {a, b}, {aMap, bMap}, {type},
                [](OpBuilder &nb, Location l, ValueRange args) {
                  return SmallVector<Value>{
                      arith::MulFOp::create(nb, l, args[0], args[1])};
                })
            .front();
    double alpha = op.getAlpha().convertToDouble();
    if (alpha != 1.0) {
      Value scale = createScalar(rewriter, loc, type, alpha);
      Value init = createEmpty(rewriter, loc, getSizes(rewriter, loc, product), type);
      product = buildElementwise(rewriter, loc, {product}, {init},
                                 [&](OpBuilder &nb, Location l, ValueRange args) {
                                   return SmallVector<Value>{
                                       arith::MulFOp::create(nb, l, args[0], scale)};
                                 })
                    .front();
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, product, resultType));
    return success();
  }
};

} // namespace

void populateFusedMatMulLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerFusedMatMul>(patterns.getContext());
}

} // namespace odt::codegen
