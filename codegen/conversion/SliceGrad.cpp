//===- SliceGrad.cpp - onnx.ms.SliceGrad -> linalg ------------------------===//
//
// dX = zeros of the forward input's shape with dY inserted where Slice read
// it: a tensor.insert_slice with, per sliced axis, offset = start (+ dim if
// negative, clamped into [0, dim]) and stride = step; for a negative step
// (a flip), dY reversed along the axis, at the lowest position the slice
// read, with stride -step. starts are read at run time; axes and steps
// must be constants.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"
#include "codegen/conversion/TrainingUtil.h"
#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// `value` with the order of its elements reversed along `axes` (a
/// generic that reads each element at its mirrored index).
Value reverseAxes(OpBuilder &b, Location loc, Value value,
                  ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, value);
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{empty}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value index = linalg::IndexOp::create(nb, l, d);
          if (llvm::is_contained(axes, d)) {
            Value last = subIndex(
                nb, l, getValueOrCreateConstantIndexOp(nb, l, sizes[d]),
                indexConstant(nb, l, 1));
            index = subIndex(nb, l, last, index);
          }
          indices.push_back(index);
        }
        linalg::YieldOp::create(
            nb, l,
            tensor::ExtractOp::create(nb, l, value, indices).getResult());
      });
  return generic.getResult(0);
}

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
    if (llvm::is_contained(steps, 0))
      return rewriter.notifyMatchFailure(op, "steps must not be 0");

    SmallVector<OpFoldResult> sizes =
        sizesFromShapeTensor(rewriter, loc, adaptor.getShape(), resultType);
    Type type = resultType.getElementType();
    Value zeros = createFilled(rewriter, loc, sizes, type, 0.0);
    Value dY = adaptor.getDY();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> dySizes = getSizes(rewriter, loc, dY);
    Value zero = indexConstant(rewriter, loc, 0);
    Value one = indexConstant(rewriter, loc, 1);
    SmallVector<int64_t> reversed;
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
          rewriter, loc, negative,
          arith::AddIOp::create(rewriter, loc, start, dim), start);
      // ONNX clamps a start into [0, dim] for a positive step and into
      // [0, dim - 1] for a negative one.
      Value highest = steps[i] > 0 ? dim : subIndex(rewriter, loc, dim, one);
      start = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, start, zero),
          highest);
      if (steps[i] < 0) {
        // Slice read start, start + step, ... (n values, a flip when the
        // step is -1): dY reversed along the axis goes at the lowest of
        // those positions, with stride -step.
        Value n = getValueOrCreateConstantIndexOp(rewriter, loc, dySizes[axis]);
        Value span = mulIndex(rewriter, loc, subIndex(rewriter, loc, n, one),
                              indexConstant(rewriter, loc, -steps[i]));
        start = arith::MaxSIOp::create(
            rewriter, loc, subIndex(rewriter, loc, start, span), zero);
        reversed.push_back(axis);
      }
      offsets[axis] = start;
      strides[axis] = rewriter.getIndexAttr(std::abs(steps[i]));
    }
    if (!reversed.empty())
      dY = reverseAxes(rewriter, loc, dY, reversed);
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
