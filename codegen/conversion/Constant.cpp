//===- Constant.cpp - onnx.Constant and onnx.Identity -> arith/tensor -----===//

#include "codegen/conversion/Common.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerConstant : OpConversionPattern<onnx::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant value is not typed");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct LowerIdentity : OpConversionPattern<onnx::IdentityOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::IdentityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    if (input.getType() != op.getOutput().getType())
      input = tensor::CastOp::create(rewriter, op.getLoc(),
                                     op.getOutput().getType(), input);
    rewriter.replaceOp(op, input);
    return success();
  }
};

} // namespace

void populateConstantLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConstant, LowerIdentity>(patterns.getContext());
}

} // namespace odt::codegen
