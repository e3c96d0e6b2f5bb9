//===- DropoutGrad.cpp - onnx.ms.DropoutGrad -> linalg --------------------===//
//
// ORT's kernel: dx = dy when ratio is 0, else mask ? dy / (1 - ratio) : 0;
// ratio 0.5 when absent; training_mode unused. One elementwise generic.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerDropoutGrad : OpConversionPattern<onnx::DropoutGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::DropoutGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getDx().getType());
    Type type = resultType.getElementType();
    Value ratio = createScalar(rewriter, loc, type, 0.5);
    if (!onnx::isNoValue(adaptor.getRatio()))
      ratio = convertScalar(rewriter, loc,
                            extractScalar(rewriter, loc, adaptor.getRatio()), type);
    Value zero = createScalar(rewriter, loc, type, 0.0);
    Value keep = arith::SubFOp::create(rewriter, loc,
                                       createScalar(rewriter, loc, type, 1.0), ratio);
    Value noDropout = arith::CmpFOp::create(rewriter, loc,
                                            arith::CmpFPredicate::OEQ, ratio, zero);
    Value dy = adaptor.getDy();
    Value init = emptyLike(rewriter, loc, resultType, getSizes(rewriter, loc, dy));
    Value result =
        buildElementwise(rewriter, loc, {dy, adaptor.getMask()}, {init},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value scaled = arith::DivFOp::create(b, l, args[0], keep);
                           Value masked =
                               arith::SelectOp::create(b, l, args[1], scaled, zero);
                           return SmallVector<Value>{arith::SelectOp::create(
                               b, l, noDropout, args[0], masked)};
                         })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateDropoutGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDropoutGrad>(patterns.getContext());
}

} // namespace odt::codegen
