//===- Scale.cpp - onnx.ms.Scale -> linalg --------------------------------===//
//
// output = input * s, or input / s with scale_down; s is the scale tensor's
// one element converted to the input's element type.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerScale : OpConversionPattern<onnx::ScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getOutput().getType());
    Type type = resultType.getElementType();
    Value scale = convertScalar(rewriter, loc,
                                extractScalar(rewriter, loc, adaptor.getScale()),
                                type);
    bool down = op.getScaleDown() != 0;
    Value input = adaptor.getInput();
    Value init = emptyLike(rewriter, loc, resultType, getSizes(rewriter, loc, input));
    Value result =
        buildElementwise(rewriter, loc, {input}, {init},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           if (down)
                             return SmallVector<Value>{
                                 arith::DivFOp::create(b, l, args[0], scale)};
                           return SmallVector<Value>{
                               arith::MulFOp::create(b, l, args[0], scale)};
                         })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateScaleLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerScale>(patterns.getContext());
}

} // namespace odt::codegen
