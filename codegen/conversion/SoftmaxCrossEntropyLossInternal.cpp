//===- SoftmaxCrossEntropyLossInternal.cpp - the loss with an ignore_index input -===//
//
// scores [N, C, D1..Dk]; a "sample" is a position of labels [N, D1..Dk].
//   lse[s]   = max_c x[s,c] + log(sum_c exp(x[s,c] - max))
//   log_prob = x - lse
//   w[s]     = label == ignore_index ? 0 : (weights ? weights[label] : 1)
//   loss[s]  = -log_prob[s, label[s]] * w[s]
//   output   = loss (none), sum(loss) (sum), sum(loss) / sum(w) (mean)
// Grad:
//   d[s,c] = (exp(log_prob[s,c]) - (c == label[s])) * w[s] * g (+ bias)
//   g = dY[s] (none), dY (sum), dY / sum(w) (mean)
// Labels outside [0, C) read a clamped class instead of faulting. A result
// type other than the inputs' (output_type) is not supported yet.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

#include <limits>

using namespace mlir;

namespace odt::codegen {
namespace {

/// The sample layout of scores-shaped tensors (class dim 1).
struct Samples {
  int64_t rank;
  SmallVector<int64_t> sampleDims;
  SmallVector<OpFoldResult> sizes, sampleSizes;
  Value numClasses;
  AffineMap identity, sampleMap;

  Samples(OpBuilder &b, Location loc, Value scores) {
    rank = cast<RankedTensorType>(scores.getType()).getRank();
    sizes = getSizes(b, loc, scores);
    for (int64_t i = 0; i < rank; ++i)
      if (i != 1) {
        sampleDims.push_back(i);
        sampleSizes.push_back(sizes[i]);
      }
    numClasses = getValueOrCreateConstantIndexOp(b, loc, sizes[1]);
    identity = identityMap(b.getContext(), rank);
    sampleMap = projection(b.getContext(), rank, sampleDims);
  }

  /// Indices of (sample at the current loop position of a sample-shaped
  /// generic, class `c`) in scores.
  SmallVector<Value> scoreIndices(OpBuilder &b, Location loc, Value c) const {
    SmallVector<Value> indices;
    for (int64_t i = 0; i + 1 < rank; ++i) {
      indices.push_back(linalg::IndexOp::create(b, loc, i));
      if (i == 0)
        indices.push_back(c);
    }
    return indices;
  }
};

Value labelToClass(OpBuilder &b, Location loc, Value label, Value numClasses) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  Value zero = indexConstant(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, numClasses, indexConstant(b, loc, 1));
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index, last);
}

/// w[s] for every sample.
Value sampleWeights(OpBuilder &b, Location loc, const Samples &samples,
                    Value labels, Value weights, Value ignoreIndex, Type type) {
  Value ignored;
  if (!onnx::isNoValue(ignoreIndex))
    ignored = extractScalar(b, loc, ignoreIndex);
  Value init = createEmpty(b, loc, samples.sampleSizes, type);
  Value zero = createScalar(b, loc, type, 0.0), one = createScalar(b, loc, type, 1.0);
  return buildElementwise(
             b, loc, {labels}, {init},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value label = args[0];
               Value weight = one;
               if (!onnx::isNoValue(weights)) {
                 Value cls = labelToClass(nb, l, label, samples.numClasses);
                 weight = tensor::ExtractOp::create(nb, l, weights, cls);
               }
               if (ignored) {
                 Value wide = label;
                 if (label.getType() != ignored.getType())
                   wide = arith::ExtSIOp::create(nb, l, ignored.getType(), label);
                 Value skip = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                                    wide, ignored);
                 weight = arith::SelectOp::create(nb, l, skip, zero, weight);
               }
               return SmallVector<Value>{weight};
             })
      .front();
}

/// The sum of all elements of a tensor, as a scalar.
Value total(OpBuilder &b, Location loc, Value tensor, Type type) {
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < rank; ++i)
    all.push_back(i);
  Value sum = sumOver(b, loc, getSizes(b, loc, tensor), all, {tensor},
                      {identityMap(b.getContext(), rank)}, {type},
                      [](OpBuilder &, Location, ValueRange args) {
                        return SmallVector<Value>{args[0]};
                      })
                  .front();
  return extractScalar(b, loc, sum);
}

struct LowerLossInternal
    : OpConversionPattern<onnx::SoftmaxCrossEntropyLossInternalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftmaxCrossEntropyLossInternalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value scores = adaptor.getScores();
    Type type = getElementTypeOrSelf(scores.getType());
    if (getElementTypeOrSelf(op.getOutput().getType()) != type)
      return rewriter.notifyMatchFailure(op, "output_type differs");
    Samples samples(rewriter, loc, scores);
    SmallVector<int64_t> classDim = {1};
    // The maximum over classes (sumOver only adds).
    Value maxInit = createFilled(rewriter, loc, samples.sampleSizes, type,
                                 -std::numeric_limits<double>::infinity());
    SmallVector<utils::IteratorType> iterators = parallelIterators(samples.rank);
    iterators[1] = utils::IteratorType::reduction;
    Value maxima = buildGeneric(rewriter, loc, {scores}, {maxInit},
                          {samples.identity, samples.sampleMap}, iterators,
                          [](OpBuilder &b, Location l, ValueRange args) {
                            return SmallVector<Value>{
                                arith::MaximumFOp::create(b, l, args[1], args[0])};
                          })
                 .front();
    Value sums =
        sumOver(rewriter, loc, samples.sizes, classDim, {scores, maxima},
                {samples.identity, samples.sampleMap}, {type},
                [](OpBuilder &b, Location l, ValueRange args) {
                  Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
                  return SmallVector<Value>{math::ExpOp::create(b, l, shifted)};
                })
            .front();
    Value logProbInit = createEmpty(rewriter, loc, samples.sizes, type);
    Value logProb =
        buildGeneric(rewriter, loc, {scores, maxima, sums}, {logProbInit},
                     {samples.identity, samples.sampleMap, samples.sampleMap,
                      samples.identity},
                     parallelIterators(samples.rank),
                     [](OpBuilder &b, Location l, ValueRange args) {
                       Value lse = arith::AddFOp::create(
                           b, l, args[1], math::LogOp::create(b, l, args[2]));
                       return SmallVector<Value>{
                           arith::SubFOp::create(b, l, args[0], lse)};
                     })
            .front();
    Value weights = sampleWeights(rewriter, loc, samples, adaptor.getLabels(),
                                  adaptor.getWeights(), adaptor.getIgnoreIndex(),
                                  type);
    Value lossInit = createEmpty(rewriter, loc, samples.sampleSizes, type);
    Value losses =
        buildElementwise(
            rewriter, loc, {adaptor.getLabels(), weights}, {lossInit},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value cls = labelToClass(b, l, args[0], samples.numClasses);
              Value picked = tensor::ExtractOp::create(
                  b, l, logProb, samples.scoreIndices(b, l, cls));
              return SmallVector<Value>{arith::NegFOp::create(
                  b, l, arith::MulFOp::create(b, l, picked, args[1]))};
            })
            .front();
    Value output = losses;
    StringRef reduction = op.getReduction();
    if (reduction != "none") {
      Value sum = total(rewriter, loc, losses, type);
      if (reduction == "mean")
        sum = arith::DivFOp::create(rewriter, loc, sum,
                                    total(rewriter, loc, weights, type));
      output = tensor::FromElementsOp::create(
          rewriter, loc, RankedTensorType::get({}, type), ValueRange{sum});
    }
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, output, op.getOutput().getType()),
             castTensor(rewriter, loc, logProb, op.getLogProb().getType())});
    return success();
  }
};

struct LowerLossInternalGrad
    : OpConversionPattern<onnx::SoftmaxCrossEntropyLossInternalGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftmaxCrossEntropyLossInternalGradOp op,
                  OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logProb = adaptor.getLogProb();
    Type type = getElementTypeOrSelf(logProb.getType());
    if (getElementTypeOrSelf(op.getDLogits().getType()) != type)
      return rewriter.notifyMatchFailure(op, "output_type differs");
    Samples samples(rewriter, loc, logProb);
    Value weights = sampleWeights(rewriter, loc, samples, adaptor.getLabel(),
                                  adaptor.getWeight(), adaptor.getIgnoreIndex(),
                                  type);
    StringRef reduction = op.getReduction();
    Value scaleInit = createEmpty(rewriter, loc, samples.sampleSizes, type);
    Value scale;
    if (reduction == "none") {
      scale = buildElementwise(rewriter, loc, {weights, adaptor.getDY()},
                               {scaleInit},
                               [](OpBuilder &b, Location l, ValueRange args) {
                                 return SmallVector<Value>{
                                     arith::MulFOp::create(b, l, args[0], args[1])};
                               })
                  .front();
    } else {
      Value dY = extractScalar(rewriter, loc, adaptor.getDY());
      if (reduction == "mean")
        dY = arith::DivFOp::create(rewriter, loc, dY,
                                   total(rewriter, loc, weights, type));
      scale = buildElementwise(rewriter, loc, {weights}, {scaleInit},
                               [&](OpBuilder &b, Location l, ValueRange args) {
                                 return SmallVector<Value>{
                                     arith::MulFOp::create(b, l, args[0], dY)};
                               })
                  .front();
    }
    SmallVector<Value> inputs = {logProb, adaptor.getLabel(), scale};
    SmallVector<AffineMap> maps = {samples.identity, samples.sampleMap,
                                   samples.sampleMap};
    bool hasBias = !onnx::isNoValue(adaptor.getBias());
    if (hasBias) {
      inputs.push_back(adaptor.getBias());
      maps.push_back(samples.identity);
    }
    maps.push_back(samples.identity);
    Value init = createEmpty(rewriter, loc, samples.sizes, type);
    Value one = createScalar(rewriter, loc, type, 1.0);
    Value zero = createScalar(rewriter, loc, type, 0.0);
    Value grad =
        buildGeneric(rewriter, loc, inputs, {init}, maps,
                     parallelIterators(samples.rank),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value probability = math::ExpOp::create(b, l, args[0]);
                       Value cls = labelToClass(b, l, args[1], samples.numClasses);
                       Value c = linalg::IndexOp::create(b, l, 1);
                       Value isLabel = arith::CmpIOp::create(
                           b, l, arith::CmpIPredicate::eq, c, cls);
                       Value target = arith::SelectOp::create(b, l, isLabel, one, zero);
                       Value d = arith::MulFOp::create(
                           b, l, arith::SubFOp::create(b, l, probability, target),
                           args[2]);
                       if (hasBias)
                         d = arith::AddFOp::create(b, l, d, args[3]);
                       return SmallVector<Value>{d};
                     })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, grad, op.getDLogits().getType()));
    return success();
  }
};

} // namespace

void populateSoftmaxCrossEntropyLossInternalLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerLossInternal, LowerLossInternalGrad>(patterns.getContext());
}

} // namespace odt::codegen
