//===- SoftmaxGrad.cpp - Softmax and LogSoftmax gradients -> linalg -------===//
//
//   SoftmaxGrad[_13]     dX = Y * (dY - sum(Y * dY))
//   LogSoftmaxGrad[_13]  dX = dY - exp(X) * sum(dY)      (X = LogSoftmax's Y)
// The sum runs over the dims [axis, rank) for the pre-13 ops (the input
// coerced to 2-D) and over the dim axis for the _13 ops: one reduction
// generic, then one elementwise generic reading the sums broadcast.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

template <typename OpTy>
struct LowerSoftmaxGrad : OpConversionPattern<OpTy> {
  LowerSoftmaxGrad(MLIRContext *context, bool isLog, bool coerced2D)
      : OpConversionPattern<OpTy>(context), isLog(isLog), coerced2D(coerced2D) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type elementType = resultType.getElementType();
    Value dY = adaptor.getOperands()[0], y = adaptor.getOperands()[1];
    int64_t rank = resultType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    SmallVector<int64_t> reduced;
    for (int64_t i = axis; i < (coerced2D ? rank : axis + 1); ++i)
      reduced.push_back(i);
    AffineMap identity = identityMap(context, rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, y);
    Value sums =
        sumOver(rewriter, loc, sizes, reduced, {dY, y}, {identity, identity},
                {elementType},
                [&](OpBuilder &b, Location l, ValueRange args) {
                  if (isLog)
                    return SmallVector<Value>{args[0]};
                  return SmallVector<Value>{
                      arith::MulFOp::create(b, l, args[1], args[0])};
                })
            .front();
    Value init = emptyLike(rewriter, loc, resultType, sizes);
    AffineMap sumMap = projection(context, rank, keptDims(rank, reduced));
    Value result =
        buildGeneric(rewriter, loc, {dY, y, sums}, {init},
                     {identity, identity, sumMap, identity},
                     parallelIterators(rank),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value grad = args[0], out = args[1], sum = args[2];
                       if (isLog) {
                         Value p = math::ExpOp::create(b, l, out);
                         return SmallVector<Value>{arith::SubFOp::create(
                             b, l, grad, arith::MulFOp::create(b, l, p, sum))};
                       }
                       Value diff = arith::SubFOp::create(b, l, grad, sum);
                       return SmallVector<Value>{
                           arith::MulFOp::create(b, l, out, diff)};
                     })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }

  bool isLog, coerced2D;
};

} // namespace

void populateSoftmaxGradLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LowerSoftmaxGrad<onnx::SoftmaxGradOp>>(context, false, true);
  patterns.add<LowerSoftmaxGrad<onnx::SoftmaxGrad_13Op>>(context, false, false);
  patterns.add<LowerSoftmaxGrad<onnx::LogSoftmaxGradOp>>(context, true, true);
  patterns.add<LowerSoftmaxGrad<onnx::LogSoftmaxGrad_13Op>>(context, true,
                                                            false);
}

} // namespace odt::codegen
