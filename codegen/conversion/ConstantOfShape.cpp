//===- ConstantOfShape.cpp - onnx.ConstantOfShape -> linalg.fill ----------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerConstantOfShape : OpConversionPattern<onnx::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    Type elementType = type.getElementType();
    TypedAttr value = rewriter.getZeroAttr(elementType);
    if (auto attr = dyn_cast_or_null<DenseElementsAttr>(op.getValueAttr()))
      value = cast<TypedAttr>(*attr.getValues<Attribute>().begin());
    if (auto integer = dyn_cast<IntegerType>(elementType);
        integer && !integer.isSignless())
      return rewriter.notifyMatchFailure(op, "unsigned element type");
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      return extractIndex(rewriter, loc, adaptor.getInput(), d);
    });
    Value init = createEmpty(rewriter, loc, sizes, elementType);
    Value scalar = arith::ConstantOp::create(rewriter, loc, value);
    Value filled =
        linalg::FillOp::create(rewriter, loc, ValueRange{scalar}, ValueRange{init})
            .getResult(0);
    rewriter.replaceOp(op, castTensor(rewriter, loc, filled, type));
    return success();
  }
};

} // namespace

void populateConstantOfShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConstantOfShape>(patterns.getContext());
}

} // namespace odt::codegen
