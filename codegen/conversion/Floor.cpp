//===- Floor.cpp - onnx.Floor -> linalg -----------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerFloor : OpConversionPattern<onnx::FloorOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::FloorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {

    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          return {math::FloorOp::create(b, loc, args[0])};
        });
  }
};

} // namespace

void populateFloorLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerFloor>(patterns.getContext());
}

} // namespace odt::codegen
