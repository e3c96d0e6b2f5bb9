//===- Softmax.cpp - onnx.Softmax -> linalg -------------------------------===//
//
// Opset 13: along one axis. Three linalg.generic ops (ReductionUtil's
// buildSoftmax): the maximum along the axis, the sum of exp(x - max), then
// exp(x - max) / sum elementwise; float16/bfloat16 compute in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerSoftmax : OpConversionPattern<onnx::SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    Value result = buildSoftmax(rewriter, op.getLoc(), input, axis,
                                /*logarithm=*/false);
    rewriter.replaceOp(op, castToType(rewriter, op.getLoc(), result,
                                      op.getOutput().getType()));
    return success();
  }
};

} // namespace

void populateSoftmaxLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSoftmax>(patterns.getContext());
}

} // namespace odt::codegen
