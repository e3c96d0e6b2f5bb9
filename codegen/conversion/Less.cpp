//===- Less.cpp - onnx.Less -> linalg -------------------------------------===//
//
// C is i1; floats compare ordered, so NaN gives false.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerLess : OpConversionPattern<onnx::LessOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LessOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInputs = isUnsignedElement(op.getA().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {createComparison(b, loc, Comparison::Less, args[0], args[1],
                                   unsignedInputs)};
        });
  }
};

} // namespace

void populateLessLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLess>(patterns.getContext());
}

} // namespace odt::codegen
