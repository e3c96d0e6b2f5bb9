//===- Softmax.cpp - onnx.Softmax, LogSoftmax -> linalg -------------------===//
//
// Opset 13: along one axis. Three linalg.generic ops (ReductionUtil's
// buildSoftmax): the maximum along the axis, the sum of exp(x - max), then
// exp(x - max) / sum (LogSoftmax: x - max - log(sum)) elementwise;
// float16/bfloat16 compute in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

template <typename SoftmaxOp, bool logarithm>
struct LowerSoftmax : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern<SoftmaxOp>::OpConversionPattern;
  using OpAdaptor = typename SoftmaxOp::Adaptor;

  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    Value result = buildSoftmax(rewriter, op.getLoc(), input, axis,
                                logarithm);
    rewriter.replaceOp(op, castTensor(rewriter, op.getLoc(), result,
                                      op.getOutput().getType()));
    return success();
  }
};

} // namespace

void populateSoftmaxLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSoftmax<onnx::SoftmaxOp, false>,
               LowerSoftmax<onnx::LogSoftmaxOp, true>>(patterns.getContext());
}

} // namespace odt::codegen
