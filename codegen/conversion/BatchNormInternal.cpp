//===- BatchNormInternal.cpp - training batch normalization -> linalg -----===//
//
// X is [N, C, D...]; every statistic is per channel over the other dims
// (M elements).
//   BatchNormInternal (training_mode 1, ORT's CPU kernel):
//     mean = sum(X) / M, var = sum((X - mean)^2) / M (biased)
//     saved_inv_std = 1 / sqrt(var + epsilon)
//     Y = (X - mean) * saved_inv_std * scale + B
//     running_mean = input_mean * momentum + mean * (1 - momentum), and
//     running_var likewise from var; saved_mean = mean
//   (training_mode 0: Y from input_mean and input_var, which the other
//   results pass through.)
//   BatchNormalizationGrad (mean and variance are the saved mean and inverse
//   standard deviation):
//     bias_grad = sum(dY), scale_grad = sum(dY * (X - mean) * inv_std)
//     X_grad = scale * inv_std / M * (M * dY - bias_grad
//                                     - (X - mean) * inv_std * scale_grad)
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct ChannelLayout {
  int64_t rank;
  SmallVector<int64_t> reduced;
  SmallVector<OpFoldResult> sizes;
  AffineMap identity, channelMap;

  ChannelLayout(OpBuilder &b, Location loc, Value x) {
    rank = cast<RankedTensorType>(x.getType()).getRank();
    for (int64_t i = 0; i < rank; ++i)
      if (i != 1)
        reduced.push_back(i);
    sizes = getSizes(b, loc, x);
    identity = identityMap(b.getContext(), rank);
    channelMap = projection(b.getContext(), rank, {1});
  }

  Value count(OpBuilder &b, Location loc, Value x, Type type) const {
    Value n = dimValue(b, loc, x, 0);
    Value rest = dimProduct(b, loc, x, 2, rank);
    return indexToFloat(b, loc, arith::MulIOp::create(b, loc, n, rest), type);
  }
};

bool allOfType(ValueRange values, Type type) {
  return llvm::all_of(values, [&](Value v) {
    return getElementTypeOrSelf(v.getType()) == type;
  });
}

struct LowerBatchNormInternal : OpConversionPattern<onnx::BatchNormInternalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::BatchNormInternalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    Type type = getElementTypeOrSelf(x.getType());
    if (!allOfType(adaptor.getOperands(), type))
      return rewriter.notifyMatchFailure(op, "mixed element types");
    ChannelLayout layout(rewriter, loc, x);
    SmallVector<OpFoldResult> channelSizes = {layout.sizes[1]};
    auto scalar = [&](double v) { return createScalar(rewriter, loc, type, v); };
    Value epsilon = scalar(op.getEpsilon().convertToDouble());
    Value one = scalar(1.0);
    bool training = op.getTrainingMode() != 0;

    Value mean = adaptor.getInputMean(), var = adaptor.getInputVar();
    if (training) {
      Value m = layout.count(rewriter, loc, x, type);
      Value sum = sumOver(rewriter, loc, layout.sizes, layout.reduced, {x},
                          {layout.identity}, {type},
                          [](OpBuilder &, Location, ValueRange args) {
                            return SmallVector<Value>{args[0]};
                          })
                      .front();
      Value meanInit = createEmpty(rewriter, loc, channelSizes, type);
      mean = buildElementwise(rewriter, loc, {sum}, {meanInit},
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                return SmallVector<Value>{
                                    arith::DivFOp::create(b, l, args[0], m)};
                              })
                 .front();
      Value sumSq =
          sumOver(rewriter, loc, layout.sizes, layout.reduced, {x, mean},
                  {layout.identity, layout.channelMap}, {type},
                  [](OpBuilder &b, Location l, ValueRange args) {
                    Value d = arith::SubFOp::create(b, l, args[0], args[1]);
                    return SmallVector<Value>{arith::MulFOp::create(b, l, d, d)};
                  })
              .front();
      Value varInit = createEmpty(rewriter, loc, channelSizes, type);
      var = buildElementwise(rewriter, loc, {sumSq}, {varInit},
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               return SmallVector<Value>{
                                   arith::DivFOp::create(b, l, args[0], m)};
                             })
                .front();
    }
    Value invInit = createEmpty(rewriter, loc, channelSizes, type);
    Value inv = buildElementwise(
                    rewriter, loc, {var}, {invInit},
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value root = math::SqrtOp::create(
                          b, l, arith::AddFOp::create(b, l, args[0], epsilon));
                      return SmallVector<Value>{
                          arith::DivFOp::create(b, l, one, root)};
                    })
                    .front();
    auto yType = cast<RankedTensorType>(op.getY().getType());
    Value yInit = emptyLike(rewriter, loc, yType, layout.sizes);
    Value y = buildGeneric(
                  rewriter, loc, {x, mean, inv, adaptor.getScale(), adaptor.getB()},
                  {yInit},
                  {layout.identity, layout.channelMap, layout.channelMap,
                   layout.channelMap, layout.channelMap, layout.identity},
                  parallelIterators(layout.rank),
                  [](OpBuilder &b, Location l, ValueRange args) {
                    Value centered = arith::SubFOp::create(b, l, args[0], args[1]);
                    Value normalized = arith::MulFOp::create(b, l, centered, args[2]);
                    Value scaled = arith::MulFOp::create(b, l, normalized, args[3]);
                    return SmallVector<Value>{
                        arith::AddFOp::create(b, l, scaled, args[4])};
                  })
                  .front();

    Value runningMean = adaptor.getInputMean(), runningVar = adaptor.getInputVar();
    Value savedMean = mean, savedInv = inv;
    if (training) {
      Value momentum = scalar(op.getMomentum().convertToDouble());
      Value rest = scalar(1.0 - op.getMomentum().convertToDouble());
      auto blend = [&](Value running, Value batch) {
        Value init = createEmpty(rewriter, loc, channelSizes, type);
        return buildElementwise(
                   rewriter, loc, {running, batch}, {init},
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value kept = arith::MulFOp::create(b, l, args[0], momentum);
                     Value added = arith::MulFOp::create(b, l, args[1], rest);
                     return SmallVector<Value>{
                         arith::AddFOp::create(b, l, kept, added)};
                   })
            .front();
      };
      runningMean = blend(runningMean, mean);
      runningVar = blend(runningVar, var);
    } else {
      savedMean = adaptor.getInputMean();
      savedInv = adaptor.getInputVar();
    }
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, y, yType),
             castTensor(rewriter, loc, runningMean, op.getRunningMean().getType()),
             castTensor(rewriter, loc, runningVar, op.getRunningVar().getType()),
             castTensor(rewriter, loc, savedMean, op.getSavedMean().getType()),
             castTensor(rewriter, loc, savedInv, op.getSavedInvStd().getType())});
    return success();
  }
};

struct LowerBatchNormalizationGrad
    : OpConversionPattern<onnx::BatchNormalizationGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::BatchNormalizationGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dY = adaptor.getDY(), x = adaptor.getX();
    Type type = getElementTypeOrSelf(x.getType());
    if (!allOfType(adaptor.getOperands(), type))
      return rewriter.notifyMatchFailure(op, "mixed element types");
    ChannelLayout layout(rewriter, loc, x);
    Value mean = adaptor.getMean(), inv = adaptor.getVariance();
    SmallVector<Value> sums = sumOver(
        rewriter, loc, layout.sizes, layout.reduced, {dY, x, mean, inv},
        {layout.identity, layout.identity, layout.channelMap, layout.channelMap},
        {type, type}, [](OpBuilder &b, Location l, ValueRange args) {
          Value centered = arith::SubFOp::create(b, l, args[1], args[2]);
          Value xhat = arith::MulFOp::create(b, l, centered, args[3]);
          return SmallVector<Value>{args[0],
                                    arith::MulFOp::create(b, l, xhat, args[0])};
        });
    Value dBias = sums[0], dScale = sums[1];
    Value m = layout.count(rewriter, loc, x, type);
    auto xGradType = cast<RankedTensorType>(op.getXGrad().getType());
    Value init = emptyLike(rewriter, loc, xGradType, layout.sizes);
    AffineMap c = layout.channelMap;
    Value xGrad =
        buildGeneric(rewriter, loc,
                     {dY, x, mean, inv, adaptor.getScale(), dBias, dScale},
                     {init}, {layout.identity, layout.identity, c, c, c, c, c,
                              layout.identity},
                     parallelIterators(layout.rank),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value centered = arith::SubFOp::create(b, l, args[1], args[2]);
                       Value scaledInv = arith::DivFOp::create(
                           b, l, arith::MulFOp::create(b, l, args[4], args[3]), m);
                       Value term = arith::SubFOp::create(
                           b, l, arith::MulFOp::create(b, l, args[0], m), args[5]);
                       Value correction = arith::MulFOp::create(
                           b, l, arith::MulFOp::create(b, l, centered, args[6]),
                           args[3]);
                       return SmallVector<Value>{arith::MulFOp::create(
                           b, l, scaledInv,
                           arith::SubFOp::create(b, l, term, correction))};
                     })
            .front();
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, xGrad, xGradType),
             castTensor(rewriter, loc, dScale, op.getScaleGrad().getType()),
             castTensor(rewriter, loc, dBias, op.getBiasGrad().getType())});
    return success();
  }
};

} // namespace

void populateBatchNormInternalLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBatchNormInternal, LowerBatchNormalizationGrad>(
      patterns.getContext());
}

} // namespace odt::codegen
