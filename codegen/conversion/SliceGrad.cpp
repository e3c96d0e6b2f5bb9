//===- SliceGrad.cpp - onnx.ms.SliceGrad -> linalg ------------------------===//
//
// dX = zeros of the forward input's shape with dY inserted where Slice read
// it: a tensor.insert_slice with, per sliced axis, offset = start (+ dim if
// negative, clamped into [0, dim]) and stride = step. starts are read at run
// time; axes and steps must be constants, and steps positive.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"
#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSliceGrad : OpConversionPattern<onnx::SliceGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SliceGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getDX().getType());
    int64_t rank = resultType.getRank();
    auto startsType = cast<RankedTensorType>(adaptor.getStarts().getType());
    if (startsType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "starts of dynamic length");
    int64_t count = startsType.getDimSize(0);
    SmallVector<int64_t> axes, steps(count, 1);
    if (onnx::isNoValue(op.getAxes())) {
      for (int64_t i = 0; i < count; ++i)
        axes.push_back(i);
    } else {
      FailureOr<SmallVector<int64_t>> values =
          onnx::getStaticIntegers(op.getAxes());
      if (failed(values) || (int64_t)values->size() != count)
        return rewriter.notifyMatchFailure(op, "axes must be constants");
      for (int64_t axis : *values)
        axes.push_back(axis < 0 ? axis + rank : axis);
    }
    if (!onnx::isNoValue(op.getSteps())) {
      FailureOr<SmallVector<int64_t>> values =
          onnx::getStaticIntegers(op.getSteps());
      if (failed(values) || (int64_t)values->size() != count)
        return rewriter.notifyMatchFailure(op, "steps must be constants");
      steps = *values;
    }
    if (llvm::any_of(steps, [](int64_t s) { return s <= 0; }))
      return rewriter.notifyMatchFailure(op, "steps must be positive");

    SmallVector<OpFoldResult> sizes =
        sizesFromShapeTensor(rewriter, loc, adaptor.getShape(), resultType);
    Type type = resultType.getElementType();
    Value zeros = createFilled(rewriter, loc, sizes, type, 0.0);
    Value dY = adaptor.getDY();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> dySizes = getSizes(rewriter, loc, dY);
    Value zero = indexConstant(rewriter, loc, 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t axis = axes[i];
      if (axis < 0 || axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      Value dim = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]);
      Value start = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          tensor::ExtractOp::create(rewriter, loc, adaptor.getStarts(),
                                    ValueRange{indexConstant(rewriter, loc, i)}));
      Value negative = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt, start, zero);
      start = arith::SelectOp::create(
          rewriter, loc, negative, arith::AddIOp::create(rewriter, loc, start, dim),
          start);
      start = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, start, zero), dim);
      offsets[axis] = start;
      strides[axis] = rewriter.getIndexAttr(steps[i]);
    }
    Value dX = tensor::InsertSliceOp::create(rewriter, loc, dY, zeros, offsets,
                                             dySizes, strides);
    rewriter.replaceOp(op, castTensor(rewriter, loc, dX, resultType));
    return success();
  }
};

} // namespace

void populateSliceGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSliceGrad>(patterns.getContext());
}

} // namespace odt::codegen
