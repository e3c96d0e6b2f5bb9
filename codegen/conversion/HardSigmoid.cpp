//===- HardSigmoid.cpp - onnx.HardSigmoid -> linalg -----------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerHardSigmoid : OpConversionPattern<onnx::HardSigmoidOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::HardSigmoidOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value linear = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, createScalar(b, loc, type, alpha), x),
              createScalar(b, loc, type, beta));
          Value upper = arith::MinimumFOp::create(b, loc, linear,
                                                  createScalar(b, loc, type, 1.0));
          return {arith::MaximumFOp::create(b, loc, upper,
                                            createScalar(b, loc, type, 0.0))};
        });
  }
};

} // namespace

void populateHardSigmoidLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerHardSigmoid>(patterns.getContext());
}

} // namespace odt::codegen
