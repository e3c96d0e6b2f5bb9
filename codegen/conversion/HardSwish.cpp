//===- HardSwish.cpp - onnx.HardSwish -> linalg ---------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerHardSwish : OpConversionPattern<onnx::HardSwishOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::HardSwishOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value gate = arith::AddFOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, x,
                                    createScalar(b, loc, type, 1.0 / 6.0)),
              createScalar(b, loc, type, 0.5));
          gate = arith::MaximumFOp::create(
              b, loc,
              arith::MinimumFOp::create(b, loc, gate,
                                        createScalar(b, loc, type, 1.0)),
              createScalar(b, loc, type, 0.0));
          return {arith::MulFOp::create(b, loc, x, gate)};
        });
  }
};

} // namespace

void populateHardSwishLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerHardSwish>(patterns.getContext());
}

} // namespace odt::codegen
