//===- Range.cpp - onnx.Range -> linalg.generic ---------------------------===//
//
// out[i] = start + i * delta over max(ceil((limit - start) / delta), 0)
// elements (computed at run time unless the result type knows it).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerRange : OpConversionPattern<onnx::RangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    Type elementType = type.getElementType();
    bool isFloat = isa<FloatType>(elementType);
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t) -> Value {
      Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
      Value count;
      if (isFloat) {
        Value span = arith::SubFOp::create(rewriter, loc, limit, start);
        Value steps = math::CeilOp::create(
            rewriter, loc, arith::DivFOp::create(rewriter, loc, span, delta));
        count = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(),
                                        steps);
        count = castToIndex(rewriter, loc, count);
      } else {
        count = ceilDivIndex(rewriter, loc,
                             subIndex(rewriter, loc,
                                      castToIndex(rewriter, loc, limit),
                                      castToIndex(rewriter, loc, start)),
                             castToIndex(rewriter, loc, delta));
      }
      return maxIndex(rewriter, loc, count, indexConstant(rewriter, loc, 0));
    });
    Value init = createEmpty(rewriter, loc, sizes, elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{identityMap(rewriter.getContext(), 1)},
        parallelIterators(1), [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value value;
          if (isFloat) {
            Value index = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
            Value x = arith::SIToFPOp::create(b, l, elementType, index);
            value = arith::AddFOp::create(
                b, l, start, arith::MulFOp::create(b, l, x, delta));
          } else {
            Value x = arith::IndexCastOp::create(b, l, elementType, i);
            value = arith::AddIOp::create(
                b, l, start, arith::MulIOp::create(b, l, x, delta));
          }
          linalg::YieldOp::create(b, l, value);
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

} // namespace

void populateRangeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRange>(patterns.getContext());
}

} // namespace odt::codegen
