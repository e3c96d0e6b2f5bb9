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

#include "codegen/lowering/Common.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

#include <limits>

using namespace mlir;

namespace odt::codegen {
namespace {

/// Shapes and maps shared by the forward and backward lowerings.
struct LossLayout {
  int64_t rank;       // rank of scores
  int64_t sampleRank; // rank of labels
  SmallVector<OpFoldResult> scoreSizes;
  SmallVector<OpFoldResult> sampleSizes;
  Value numClasses; // index

  LossLayout(OpBuilder &b, Location loc, Value scores) {
    rank = cast<RankedTensorType>(scores.getType()).getRank();
    sampleRank = rank - 1;
    scoreSizes = getSizes(b, loc, scores);
    for (int64_t i = 0; i < rank; ++i)
      if (i != 1)
        sampleSizes.push_back(scoreSizes[i]);
    numClasses = getValueOrCreateConstantIndexOp(b, loc, scoreSizes[1]);
  }

  /// In a domain of `rank` dims laid out like scores (n, c, d...), the map
  /// that reads a sample-shaped tensor (drops the class dim).
  AffineMap sampleMapInScoreDomain(MLIRContext *context) const {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i)
      if (i != 1)
        exprs.push_back(getAffineDimExpr(i, context));
    return AffineMap::get(rank, 0, exprs, context);
  }

  /// The iterators of a reduction over classes in the score domain.
  SmallVector<utils::IteratorType> classReductionIterators() const {
    auto iterators = parallelIterators(rank);
    iterators[1] = utils::IteratorType::reduction;
    return iterators;
  }

  /// The indices of sample `s` in the score layout, with class `c`.
  SmallVector<Value> scoreIndices(OpBuilder &b, Location loc, Value c) const {
    SmallVector<Value> indices;
    for (int64_t i = 0; i < sampleRank; ++i) {
      indices.push_back(linalg::IndexOp::create(b, loc, i));
      if (i == 0)
        indices.push_back(c);
    }
    return indices;
  }
};

/// The class of a label, clamped into [0, C) so a bad label cannot fault.
Value labelToClass(OpBuilder &b, Location loc, Value label, Value numClasses) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, numClasses, one);
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index, last);
}

/// w[s] for every sample: 0 for ignored labels, else weights[label] or 1.
Value sampleWeights(OpBuilder &b, Location loc, const LossLayout &layout,
                    Value labels, Value weights,
                    std::optional<int64_t> ignoreIndex, Type elementType) {
  Value init = createEmpty(b, loc, layout.sampleSizes, elementType);
  Value zero = createScalar(b, loc, elementType, 0.0);
  Value one = createScalar(b, loc, elementType, 1.0);
  return buildElementwise(
             b, loc, {labels}, {init},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value label = args[0];
               Value weight = one;
               if (!onnx::isNoValue(weights)) {
                 Value cls = labelToClass(nb, l, label, layout.numClasses);
                 weight = tensor::ExtractOp::create(nb, l, weights, cls);
               }
               if (ignoreIndex) {
                 Value ignored = arith::CmpIOp::create(
                     nb, l, arith::CmpIPredicate::eq, label,
                     createScalar(nb, l, label.getType(), *ignoreIndex));
                 weight = arith::SelectOp::create(nb, l, ignored, zero, weight);
               }
               return SmallVector<Value>{weight};
             })
      .front();
}

/// Sum of every element of `tensor` as a 0-d tensor.
Value sumAll(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value init = createFilled(b, loc, {}, type.getElementType(), 0.0);
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {identityMap(context, type.getRank()),
                                 AffineMap::get(type.getRank(), 0, {}, context)};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{tensor},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, Value(arith::AddFOp::create(nb, l, args[1], args[0])));
             })
      .getResult(0);
}

struct LowerSoftmaxCrossEntropyLoss
    : OpConversionPattern<onnx::SoftmaxCrossEntropyLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftmaxCrossEntropyLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value scores = adaptor.getScores();
    auto scoresType = cast<RankedTensorType>(scores.getType());
    Type elementType = scoresType.getElementType();
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

    // per-sample loss
    Value weights = sampleWeights(rewriter, loc, layout, adaptor.getLabels(),
                                  adaptor.getWeights(), op.getIgnoreIndex(),
                                  elementType);
    Value lossInit = createEmpty(rewriter, loc, layout.sampleSizes, elementType);
    Value losses =
        buildElementwise(
            rewriter, loc, {adaptor.getLabels(), weights}, {lossInit},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value cls = labelToClass(b, l, args[0], layout.numClasses);
              Value picked = tensor::ExtractOp::create(
                  b, l, logProb, layout.scoreIndices(b, l, cls));
              Value weighted = arith::MulFOp::create(b, l, picked, args[1]);
              return SmallVector<Value>{arith::NegFOp::create(b, l, weighted)};
            })
            .front();

    Value loss = losses;
    StringRef reduction = op.getReduction();
    if (reduction != "none") {
      loss = sumAll(rewriter, loc, losses);
      if (reduction == "mean") {
        Value total = sumAll(rewriter, loc, weights);
        Value lossInit0 = createEmpty(rewriter, loc, {}, elementType);
        loss = buildElementwise(rewriter, loc, {loss, total}, {lossInit0},
                                [&](OpBuilder &b, Location l, ValueRange args) {
                                  return SmallVector<Value>{
                                      arith::DivFOp::create(b, l, args[0], args[1])};
                                })
                   .front();
      }
    }
    auto castTo = [&](Value value, Type type) -> Value {
      if (value.getType() == type)
        return value;
      return tensor::CastOp::create(rewriter, loc, type, value);
    };
    rewriter.replaceOp(op, {castTo(loss, op.getOutput().getType()),
                            castTo(logProb, op.getLogProb().getType())});
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
