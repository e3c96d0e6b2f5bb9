//===- ReduceSumTraining.cpp - onnx.ms.ReduceSumTraining -> linalg --------===//
//
// A sum over the axes known at compile time (see the op), as ReduceSum.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerReduceSumTraining : OpConversionPattern<onnx::ReduceSumTrainingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ReduceSumTrainingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> axes = op.getStaticAxes();
    if (failed(axes))
      return rewriter.notifyMatchFailure(op, "axes not known");
    auto resultType = cast<RankedTensorType>(op.getReduced().getType());
    if (!isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer data");
    rewriter.replaceOp(op, reduceSumAxes(rewriter, op.getLoc(), adaptor.getData(),
                                         *axes, op.getKeepdims() != 0,
                                         resultType));
    return success();
  }
};

} // namespace

void populateReduceSumTrainingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduceSumTraining>(patterns.getContext());
}

} // namespace odt::codegen
