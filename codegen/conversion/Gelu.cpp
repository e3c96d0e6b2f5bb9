//===- Gelu.cpp - onnx.Gelu -> linalg -------------------------------------===//
//
// Y = 0.5 * X * (1 + erf(X / sqrt(2))), or with approximate = "tanh"
// Y = 0.5 * X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 * X^3))).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGelu : OpConversionPattern<onnx::GeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool useTanh = op.getApproximate() == "tanh";
    return lowerToElementwise(
        rewriter, op, {adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Type type = x.getType();
          Value half = createScalar(b, loc, type, 0.5);
          Value one = createScalar(b, loc, type, 1.0);
          Value phi2; // 1 + erf(x / sqrt(2)), or 1 + tanh(...) when approximated
          if (useTanh) {
            // sqrt(2 / pi) * (x + 0.044715 * x^3)
            Value x3 = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
            Value inner = arith::AddFOp::create(
                b, loc, x,
                arith::MulFOp::create(b, loc, createScalar(b, loc, type, 0.044715), x3));
            Value scaled = arith::MulFOp::create(
                b, loc, createScalar(b, loc, type, 0.7978845608028654), inner);
            phi2 = arith::AddFOp::create(b, loc, one, math::TanhOp::create(b, loc, scaled));
          } else {
            Value scaled = arith::MulFOp::create(
                b, loc, x, createScalar(b, loc, type, 0.7071067811865476));
            phi2 = arith::AddFOp::create(b, loc, one, createErf(b, loc, scaled));
          }
          return {arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                                        phi2)};
        });
  }
};

} // namespace

void populateGeluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGelu>(patterns.getContext());
}

} // namespace odt::codegen
