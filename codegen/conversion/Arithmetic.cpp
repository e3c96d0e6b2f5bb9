//===- Arithmetic.cpp - onnx.Add, Sub, Mul -> linalg ----------------------===//
//
// One elementwise linalg.generic over the broadcast shape; integers wrap
// around (two's complement), as in ONNX Runtime. (Div needs more: integer
// division by zero and unsigned division, see Div.cpp.)
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

template <typename BinaryOp, typename FloatOp, typename IntegerOp>
struct LowerArithmetic : OpConversionPattern<BinaryOp> {
  using OpConversionPattern<BinaryOp>::OpConversionPattern;
  using OpAdaptor = typename BinaryOp::Adaptor;

  LogicalResult
  matchAndRewrite(BinaryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToElementwise(
        rewriter, op, {adaptor.getA(), adaptor.getB()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], y = args[1];
          if (isa<FloatType>(x.getType()))
            return {FloatOp::create(b, loc, x, y)};
          return {IntegerOp::create(b, loc, x, y)};
        });
  }
};

} // namespace

void populateArithmeticLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerArithmetic<onnx::AddOp, arith::AddFOp, arith::AddIOp>,
               LowerArithmetic<onnx::SubOp, arith::SubFOp, arith::SubIOp>,
               LowerArithmetic<onnx::MulOp, arith::MulFOp, arith::MulIOp>>(
      patterns.getContext());
}

} // namespace odt::codegen
