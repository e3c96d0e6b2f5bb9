//===- IsInf.cpp - onnx.IsInf -> linalg -----------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerIsInf : OpConversionPattern<onnx::IsInfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::IsInfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool negative = op.getDetectNegative() != 0;
    bool positive = op.getDetectPositive() != 0;
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value found = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
          auto equals = [&](double infinity) {
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                         createScalar(b, loc, type, infinity));
          };
          if (negative)
            found = arith::OrIOp::create(b, loc, found, equals(-INFINITY));
          if (positive)
            found = arith::OrIOp::create(b, loc, found, equals(INFINITY));
          return {found};
        });
  }
};

} // namespace

void populateIsInfLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerIsInf>(patterns.getContext());
}

} // namespace odt::codegen
