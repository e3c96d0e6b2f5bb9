//===- Gemm.cpp - onnx.Gemm -> linalg -------------------------------------===//
//
// Y = alpha * op(A) * op(B) + beta * C as one linalg.generic over (m, n, k)
// whose init is beta * C broadcast to [M, N] (or zero). Transposes are folded
// into the indexing maps, so no transposed copy is made.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGemm : OpConversionPattern<onnx::GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getY().getType());
    Type elementType = resultType.getElementType();
    Value a = adaptor.getA(), b = adaptor.getB();
    bool transA = op.getTransA(), transB = op.getTransB();
    float alpha = op.getAlpha().convertToFloat();
    float beta = op.getBeta().convertToFloat();

    SmallVector<OpFoldResult> sizesA = getSizes(rewriter, loc, a);
    SmallVector<OpFoldResult> sizesB = getSizes(rewriter, loc, b);
    SmallVector<OpFoldResult> sizes = {transA ? sizesA[1] : sizesA[0],
                                       transB ? sizesB[0] : sizesB[1]};

    Value init;
    if (!onnx::isNoValue(adaptor.getC()) && beta != 0.0f) {
      Value empty = createEmpty(rewriter, loc, sizes, elementType);
      Value betaValue = createScalar(rewriter, loc, elementType, beta);
      init = buildElementwise(
                 rewriter, loc, {adaptor.getC()}, {empty},
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   Value c = args[0];
                   if (beta != 1.0f)
                     c = arith::MulFOp::create(b, l, betaValue, c);
                   return SmallVector<Value>{c};
                 })
                 .front();
    } else {
      init = createFilled(rewriter, loc, sizes, elementType, 0.0);
    }

    MLIRContext *context = rewriter.getContext();
    AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
               k = getAffineDimExpr(2, context);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0, transA ? ArrayRef<AffineExpr>{k, m}
                                    : ArrayRef<AffineExpr>{m, k},
                       context),
        AffineMap::get(3, 0, transB ? ArrayRef<AffineExpr>{n, k}
                                    : ArrayRef<AffineExpr>{k, n},
                       context),
        AffineMap::get(3, 0, {m, n}, context)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    Value alphaValue = createScalar(rewriter, loc, elementType, alpha);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{a, b},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
          if (alpha != 1.0f)
            product = arith::MulFOp::create(nb, l, alphaValue, product);
          Value sum = arith::AddFOp::create(nb, l, args[2], product);
          linalg::YieldOp::create(nb, l, sum);
        });
    Value result = generic.getResult(0);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateGemmLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGemm>(patterns.getContext());
}

} // namespace odt::codegen
