//===- Greater.cpp - onnx.Greater -> linalg -------------------------------===//
//
// C is i1; floats compare ordered, so NaN gives false.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGreater : OpConversionPattern<onnx::GreaterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GreaterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInputs = isUnsignedElement(op.getA().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {createComparison(b, loc, Comparison::Greater, args[0], args[1],
                                   unsignedInputs)};
        });
  }
};

} // namespace

void populateGreaterLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGreater>(patterns.getContext());
}

} // namespace odt::codegen
