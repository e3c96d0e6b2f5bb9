//===- NegativeLogLikelihoodLoss.cpp - onnx.NegativeLogLikelihoodLoss -----===//
//
// input [N, C, D1..Dk] (log-probabilities), target [N, D1..Dk]: the tail of
// SoftmaxCrossEntropyLoss's lowering (ReductionUtil's
// buildNegativeLogLikelihood):
//   w[s]      = target == ignore_index ? 0 : (weight ? weight[target] : 1)
//   loss[s]   = -input[s, target[s]] * w[s]
//   reduction : none -> loss; sum -> sum(loss); mean -> sum(loss) / sum(w)
// float16/bfloat16 compute in f32. Targets outside [0, C) read a clamped
// class instead of faulting.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerNegativeLogLikelihoodLoss
    : OpConversionPattern<onnx::NegativeLogLikelihoodLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::NegativeLogLikelihoodLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type storageType =
        cast<RankedTensorType>(adaptor.getInput().getType()).getElementType();
    Type elementType = getAccumulatorType(storageType);
    Value input = convertTensor(rewriter, loc, adaptor.getInput(), elementType);
    Value weight = adaptor.getWeight();
    if (!onnx::isNoValue(weight))
      weight = convertTensor(rewriter, loc, weight, elementType);
    LossLayout layout(rewriter, loc, input);
    Value loss = buildNegativeLogLikelihood(
        rewriter, loc, layout, input, adaptor.getTarget(), weight,
        op.getIgnoreIndex(), op.getReduction());
    loss = convertTensor(rewriter, loc, loss, storageType);
    rewriter.replaceOp(op,
                       castTensor(rewriter, loc, loss, op.getLoss().getType()));
    return success();
  }
};

} // namespace

void populateNegativeLogLikelihoodLossLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerNegativeLogLikelihoodLoss>(patterns.getContext());
}

} // namespace odt::codegen
