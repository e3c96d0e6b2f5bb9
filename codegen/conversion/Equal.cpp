//===- Equal.cpp - onnx.Equal -> linalg -----------------------------------===//
//
// C is i1; floats compare ordered, so NaN gives false.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerEqual : OpConversionPattern<onnx::EqualOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::EqualOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInputs = isUnsignedElement(op.getA().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {createComparison(b, loc, Comparison::Equal, args[0], args[1],
                                   unsignedInputs)};
        });
  }
};

} // namespace

void populateEqualLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerEqual>(patterns.getContext());
}

} // namespace odt::codegen
