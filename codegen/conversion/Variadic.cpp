//===- Variadic.cpp - onnx.Max, Min, Sum, Mean -> linalg ------------------===//
//
// One loop over the broadcast shape of all inputs, folding left to right;
// float max/min propagate NaN (numpy's maximum/minimum); Mean divides the
// sum by the input count once.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

enum class Fold { Max, Min, Sum, Mean };

template <typename VariadicOp, Fold kind>
struct LowerVariadic : OpConversionPattern<VariadicOp> {
  using OpConversionPattern<VariadicOp>::OpConversionPattern;
  using OpAdaptor = typename VariadicOp::Adaptor;

  LogicalResult
  matchAndRewrite(VariadicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool unsignedInputs = isUnsignedElement(op.getData_0().front().getType());
    return lowerToElementwise(
        rewriter, op, {adaptor.getData_0()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
          Value result = args.front();
          for (Value next : args.drop_front()) {
            if (kind == Fold::Max)
              result = createMaximum(b, loc, result, next, unsignedInputs);
            else if (kind == Fold::Min)
              result = createMinimum(b, loc, result, next, unsignedInputs);
            else
              result = arith::AddFOp::create(b, loc, result, next);
          }
          if (kind == Fold::Mean)
            result = arith::DivFOp::create(
                b, loc, result,
                createScalar(b, loc, result.getType(),
                             static_cast<double>(args.size())));
          return {result};
        });
  }
};

} // namespace

void populateVariadicLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerVariadic<onnx::MaxOp, Fold::Max>,
               LowerVariadic<onnx::MinOp, Fold::Min>,
               LowerVariadic<onnx::SumOp, Fold::Sum>,
               LowerVariadic<onnx::MeanOp, Fold::Mean>>(patterns.getContext());
}

} // namespace odt::codegen
