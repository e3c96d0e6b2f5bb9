//===- SoftmaxCrossEntropyLoss.cpp - the loss and its gradient -> linalg --===//
//
// scores [N, C, D1..Dk], labels [N, D1..Dk]. "Samples" are the positions of
// labels; the class axis is 1. Forward:
//   lse[s]      = max_c x[s,c] + log(sum_c exp(x[s,c] - max))
//   log_prob    = x - lse
//   w[s]        = label == ignore_index ? 0 : (weights ? weights[label] : 1)
//   loss[s]     = -log_prob[s, label[s]] * w[s]
//   reduction   : none -> loss; sum -> sum(loss); mean -> sum(loss) / sum(w)
// Gradient (com.microsoft SoftmaxCrossEntropyLossGrad):
//   d[s,c] = (exp(log_prob[s,c]) - (c == label[s])) * w[s] * g[s]
//   g = dY[s] (none), dY (sum), dY / sum(w) (mean)
// Labels outside [0, C) read a clamped class instead of faulting.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

#include <limits>

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerSoftmaxCrossEntropyLoss
    : OpConversionPattern<onnx::SoftmaxCrossEntropyLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftmaxCrossEntropyLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    // float16/bfloat16 compute in f32.
    Type storageType =
        cast<RankedTensorType>(adaptor.getScores().getType()).getElementType();
    Type elementType = getAccumulatorType(storageType);
    Value scores = convertTensor(rewriter, loc, adaptor.getScores(), elementType);
    Value classWeights = adaptor.getWeights();
    if (!onnx::isNoValue(classWeights))
      classWeights = convertTensor(rewriter, loc, classWeights, elementType);
    LossLayout layout(rewriter, loc, scores);
    AffineMap identity = identityMap(context, layout.rank);
    AffineMap sampleMap = layout.sampleMapInScoreDomain(context);

    // max over classes
    Value maxInit = createFilled(rewriter, loc, layout.sampleSizes, elementType,
                                 -std::numeric_limits<double>::infinity());
    Value maxima =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{maxInit.getType()}, ValueRange{scores},
            ValueRange{maxInit}, SmallVector<AffineMap>{identity, sampleMap},
            layout.classReductionIterators(),
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  b, l, Value(arith::MaximumFOp::create(b, l, args[1], args[0])));
            })
            .getResult(0);
    // sum of exp(x - max)
    Value sumInit =
        createFilled(rewriter, loc, layout.sampleSizes, elementType, 0.0);
    Value sums =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{sumInit.getType()},
            ValueRange{scores, maxima}, ValueRange{sumInit},
            SmallVector<AffineMap>{identity, sampleMap, sampleMap},
            layout.classReductionIterators(),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
              Value e = math::ExpOp::create(b, l, shifted);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, args[2], e)));
            })
            .getResult(0);
    // lse = max + log(sum)
    Value lseInit = createEmpty(rewriter, loc, layout.sampleSizes, elementType);
    Value lse = buildElementwise(rewriter, loc, {maxima, sums}, {lseInit},
                                 [&](OpBuilder &b, Location l, ValueRange args) {
                                   Value log = math::LogOp::create(b, l, args[1]);
                                   return SmallVector<Value>{
                                       arith::AddFOp::create(b, l, args[0], log)};
                                 })
                    .front();
    // log_prob = x - lse
    Value logProbInit =
        createEmpty(rewriter, loc, layout.scoreSizes, elementType);
    Value logProb =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{logProbInit.getType()},
            ValueRange{scores, lse}, ValueRange{logProbInit},
            SmallVector<AffineMap>{identity, sampleMap, identity},
            parallelIterators(layout.rank),
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  b, l, Value(arith::SubFOp::create(b, l, args[0], args[1])));
            })
            .getResult(0);

    // -log_prob[label] * w per sample, then the reduction.
    Value loss = buildNegativeLogLikelihood(
        rewriter, loc, layout, logProb, adaptor.getLabels(), classWeights,
        op.getIgnoreIndex(), op.getReduction());
    loss = convertTensor(rewriter, loc, loss, storageType);
    logProb = convertTensor(rewriter, loc, logProb, storageType);
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, loss, op.getOutput().getType()),
             castTensor(rewriter, loc, logProb, op.getLogProb().getType())});
    return success();
  }
};

struct LowerSoftmaxCrossEntropyLossGrad
    : OpConversionPattern<onnx::SoftmaxCrossEntropyLossGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftmaxCrossEntropyLossGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value logProb = adaptor.getLogProb();
    Type elementType = cast<RankedTensorType>(logProb.getType()).getElementType();
    LossLayout layout(rewriter, loc, logProb);
    AffineMap identity = identityMap(context, layout.rank);
    AffineMap sampleMap = layout.sampleMapInScoreDomain(context);

    Value weights = sampleWeights(rewriter, loc, layout, adaptor.getLabel(),
                                  adaptor.getWeight(), op.getIgnoreIndex(),
                                  elementType);
    StringRef reduction = op.getReduction();
    // g[s] folded into the per-sample scale w[s] * g[s].
    Value scaleInit = createEmpty(rewriter, loc, layout.sampleSizes, elementType);
    Value scale;
    if (reduction == "none") {
      scale = buildElementwise(rewriter, loc, {weights, adaptor.getDY()},
                               {scaleInit},
                               [&](OpBuilder &b, Location l, ValueRange args) {
                                 return SmallVector<Value>{
                                     arith::MulFOp::create(b, l, args[0], args[1])};
                               })
                  .front();
    } else {
      Value dY = extractScalar(rewriter, loc, adaptor.getDY());
      if (reduction == "mean") {
        Value total = extractScalar(rewriter, loc, sumAll(rewriter, loc, weights));
        dY = arith::DivFOp::create(rewriter, loc, dY, total);
      }
      scale = buildElementwise(rewriter, loc, {weights}, {scaleInit},
                               [&](OpBuilder &b, Location l, ValueRange args) {
                                 return SmallVector<Value>{
                                     arith::MulFOp::create(b, l, args[0], dY)};
                               })
                  .front();
    }

    Value init = createEmpty(rewriter, loc, layout.scoreSizes, elementType);
    Value one = createScalar(rewriter, loc, elementType, 1.0);
    Value zero = createScalar(rewriter, loc, elementType, 0.0);
    Value grad =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()},
            ValueRange{logProb, adaptor.getLabel(), scale}, ValueRange{init},
            SmallVector<AffineMap>{identity, sampleMap, sampleMap, identity},
            parallelIterators(layout.rank),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value probability = math::ExpOp::create(b, l, args[0]);
              Value cls = labelToClass(b, l, args[1], layout.numClasses);
              Value c = linalg::IndexOp::create(b, l, 1);
              Value isLabel = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::eq, c, cls);
              Value target = arith::SelectOp::create(b, l, isLabel, one, zero);
              Value diff = arith::SubFOp::create(b, l, probability, target);
              linalg::YieldOp::create(
                  b, l, Value(arith::MulFOp::create(b, l, diff, args[2])));
            })
            .getResult(0);
    if (grad.getType() != op.getDLogits().getType())
      grad = tensor::CastOp::create(rewriter, loc, op.getDLogits().getType(), grad);
    rewriter.replaceOp(op, grad);
    return success();
  }
};

} // namespace

void populateSoftmaxCrossEntropyLossLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerSoftmaxCrossEntropyLoss, LowerSoftmaxCrossEntropyLossGrad>(
      patterns.getContext());
}

} // namespace odt::codegen
