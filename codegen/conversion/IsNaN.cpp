//===- IsNaN.cpp - onnx.IsNaN -> linalg -----------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerIsNaN : OpConversionPattern<onnx::IsNaNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::IsNaNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          return {
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x)};
        });
  }
};

} // namespace

void populateIsNaNLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerIsNaN>(patterns.getContext());
}

} // namespace odt::codegen
