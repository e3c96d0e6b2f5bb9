//===- Celu.cpp - onnx.Celu -> linalg -------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerCelu : OpConversionPattern<onnx::CeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value zero = createScalar(b, loc, type, 0.0);
          Value scaled = arith::DivFOp::create(
              b, loc, x, createScalar(b, loc, type, alpha));
          Value expm1 =
              arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, scaled),
                                    createScalar(b, loc, type, 1.0));
          Value negativePart = arith::MinimumFOp::create(
              b, loc, zero,
              arith::MulFOp::create(b, loc, createScalar(b, loc, type, alpha),
                                    expm1));
          return {arith::AddFOp::create(
              b, loc, arith::MaximumFOp::create(b, loc, x, zero),
              negativePart)};
        });
  }
};

} // namespace

void populateCeluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCelu>(patterns.getContext());
}

} // namespace odt::codegen
