//===- Where.cpp - onnx.Where -> linalg -----------------------------------===//
//
// condition, X and Y broadcast together; elements are selected, not
// computed, so half floats are not widened.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerWhere : OpConversionPattern<onnx::WhereOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getCondition(), adaptor.getX(), adaptor.getY()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {arith::SelectOp::create(b, loc, args[0], args[1], args[2])};
        },
        ElementwiseOptions{/*widenHalf=*/false});
  }
};

} // namespace

void populateWhereLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerWhere>(patterns.getContext());
}

} // namespace odt::codegen
