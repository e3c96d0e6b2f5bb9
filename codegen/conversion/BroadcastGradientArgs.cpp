//===- BroadcastGradientArgs.cpp - onnx.ms.BroadcastGradientArgs -> arith -===//
//
// The axes are compile-time constants (see the op): arith.constant tensors.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerBroadcastGradientArgs
    : OpConversionPattern<onnx::BroadcastGradientArgsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::BroadcastGradientArgsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> results;
    for (unsigned index = 0; index < 2; ++index) {
      FailureOr<SmallVector<int64_t>> axes = op.getStaticAxes(index);
      if (failed(axes))
        return rewriter.notifyMatchFailure(op, "shapes not known");
      auto type = RankedTensorType::get({(int64_t)axes->size()},
                                        rewriter.getI64Type());
      Value constant = arith::ConstantOp::create(
          rewriter, op.getLoc(),
          DenseElementsAttr::get(type, ArrayRef<int64_t>(*axes)));
      results.push_back(
          castTensor(rewriter, op.getLoc(), constant, op->getResult(index).getType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateBroadcastGradientArgsLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBroadcastGradientArgs>(patterns.getContext());
}

} // namespace odt::codegen
