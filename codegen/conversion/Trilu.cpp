//===- Trilu.cpp - onnx.Trilu -> linalg.generic ---------------------------===//
//
// Keeps x[..., i, j] where j - i >= k (upper) or j - i <= k (lower), else 0.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerTrilu : OpConversionPattern<onnx::TriluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    Value k = onnx::isNoValue(adaptor.getK())
                  ? indexConstant(rewriter, loc, 0)
                  : extractScalarIndex(rewriter, loc, adaptor.getK());
    bool upper = op.getUpper();
    input = castTensor(rewriter, loc, input, type);
    Value init = createEmpty(rewriter, loc, getSizes(rewriter, loc, input),
                             elementType);
    Value zero = isa<FloatType>(elementType) || elementType.isSignlessInteger()
                     ? createScalar(rewriter, loc, elementType, 0.0)
                     : arith::ConstantOp::create(
                           rewriter, loc, rewriter.getZeroAttr(elementType))
                           .getResult();
    Value result =
        buildElementwise(
            rewriter, loc, {input}, {init},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value i = linalg::IndexOp::create(b, l, rank - 2);
              Value j = linalg::IndexOp::create(b, l, rank - 1);
              Value offset = subIndex(b, l, j, i);
              Value keep = cmpIndex(b, l,
                                    upper ? arith::CmpIPredicate::sge
                                          : arith::CmpIPredicate::sle,
                                    offset, k);
              return SmallVector<Value>{
                  arith::SelectOp::create(b, l, keep, args[0], zero)};
            })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateTriluLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTrilu>(patterns.getContext());
}

} // namespace odt::codegen
