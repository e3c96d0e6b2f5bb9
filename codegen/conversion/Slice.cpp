//===- Slice.cpp - onnx.Slice -> tensor.extract_slice or linalg.generic ---===//
//
// Bounds are computed at run time (they fold when constant) and clamped as
// ONNX says. Positive constant steps make a strided extract_slice; other
// steps (negative, or known only at run time) a linalg.generic that reads
// data[start + i * step] with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerSlice : OpConversionPattern<onnx::SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = dataType.getRank();
    auto startsType = cast<RankedTensorType>(adaptor.getStarts().getType());
    if (startsType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "starts has a dynamic length");
    int64_t length = startsType.getDimSize(0);

    SmallVector<int64_t> axes;
    if (onnx::isNoValue(adaptor.getAxes())) {
      for (int64_t i = 0; i < length; ++i)
        axes.push_back(i);
    } else {
      std::optional<SmallVector<int64_t>> values =
          getConstantInts(adaptor.getAxes());
      if (!values)
        return rewriter.notifyMatchFailure(op, "axes are not constant");
      for (int64_t axis : *values)
        axes.push_back(axis < 0 ? axis + rank : axis);
    }

    Value zero = indexConstant(rewriter, loc, 0);
    Value one = indexConstant(rewriter, loc, 1);
    Value minusOne = indexConstant(rewriter, loc, -1);
    SmallVector<Value> starts(rank, zero), steps(rank, one), sizes(rank);
    SmallVector<std::optional<int64_t>> constantSteps(rank, 1);
    for (int64_t d = 0; d < rank; ++d)
      sizes[d] = dimValue(rewriter, loc, data, d);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      Value dim = sizes[axis];
      Value start = extractIndex(rewriter, loc, adaptor.getStarts(), i);
      Value end = extractIndex(rewriter, loc, adaptor.getEnds(), i);
      Value step = onnx::isNoValue(adaptor.getSteps())
                       ? one
                       : extractIndex(rewriter, loc, adaptor.getSteps(), i);
      auto fromEnd = [&](Value bound) {
        return selectValue(
            rewriter, loc,
            cmpIndex(rewriter, loc, arith::CmpIPredicate::slt, bound, zero),
            addIndex(rewriter, loc, bound, dim), bound);
      };
      start = fromEnd(start);
      end = fromEnd(end);
      // Forward: start, end in [0, dim]; backward: start in [0, dim - 1],
      // end in [-1, dim - 1].
      Value forwardStart = clampIndex(rewriter, loc, start, zero, dim);
      Value forwardEnd = clampIndex(rewriter, loc, end, zero, dim);
      Value forwardSize = maxIndex(
          rewriter, loc,
          ceilDivIndex(rewriter, loc,
                       subIndex(rewriter, loc, forwardEnd, forwardStart), step),
          zero);
      Value last = subIndex(rewriter, loc, dim, one);
      Value backwardStart = clampIndex(rewriter, loc, start, zero, last);
      Value backwardEnd = clampIndex(rewriter, loc, end, minusOne, last);
      Value backwardSize = maxIndex(
          rewriter, loc,
          ceilDivIndex(rewriter, loc,
                       subIndex(rewriter, loc, backwardStart, backwardEnd),
                       subIndex(rewriter, loc, zero, step)),
          zero);
      std::optional<int64_t> constantStep = getConstantIntValue(step);
      constantSteps[axis] = constantStep;
      if (constantStep && *constantStep > 0) {
        starts[axis] = forwardStart;
        sizes[axis] = forwardSize;
      } else if (constantStep && *constantStep < 0) {
        starts[axis] = backwardStart;
        sizes[axis] = backwardSize;
      } else {
        Value forward =
            cmpIndex(rewriter, loc, arith::CmpIPredicate::sgt, step, zero);
        starts[axis] =
            selectValue(rewriter, loc, forward, forwardStart, backwardStart);
        sizes[axis] =
            selectValue(rewriter, loc, forward, forwardSize, backwardSize);
      }
      steps[axis] = step;
    }
    SmallVector<OpFoldResult> resultSizes =
        mixedSizes(type, [&](int64_t d) { return sizes[d]; });

    auto sourceIndices = [&](OpBuilder &b, Location l,
                             ArrayRef<Value> indices) {
      SmallVector<Value> coordinates;
      for (int64_t d = 0; d < rank; ++d)
        coordinates.push_back(addIndex(
            b, l, starts[d], mulIndex(b, l, indices[d], steps[d])));
      return coordinates;
    };

    if (isSmallIntTensor(type) && isSmallIntTensor(dataType)) {
      Value result = buildFromElements(
          rewriter, loc, type, [&](int64_t, ArrayRef<int64_t> coordinates) {
            SmallVector<Value> indices;
            for (int64_t c : coordinates)
              indices.push_back(indexConstant(rewriter, loc, c));
            return rewriter.createOrFold<tensor::ExtractOp>(
                loc, data, sourceIndices(rewriter, loc, indices));
          });
      rewriter.replaceOp(op, result);
      return success();
    }

    // An empty result reads nothing; its clamped start may equal the dim
    // size, which extract_slice would reject as out of bounds.
    if (llvm::is_contained(type.getShape(), 0)) {
      rewriter.replaceOp(op, castTensor(rewriter, loc,
                                        createEmpty(rewriter, loc, resultSizes,
                                                    type.getElementType()),
                                        type));
      return success();
    }

    bool positiveSteps = llvm::all_of(constantSteps, [](auto step) {
      return step && *step > 0;
    });
    if (positiveSteps) {
      SmallVector<OpFoldResult> offsets, strides;
      for (int64_t d = 0; d < rank; ++d) {
        offsets.push_back(toFoldResult(starts[d]));
        strides.push_back(toFoldResult(steps[d]));
      }
      Value slice = tensor::ExtractSliceOp::create(rewriter, loc, data, offsets,
                                                   resultSizes, strides);
      rewriter.replaceOp(op, castTensor(rewriter, loc, slice, type));
      return success();
    }

    Value init = createEmpty(rewriter, loc, resultSizes, type.getElementType());
    auto initType = cast<RankedTensorType>(init.getType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{initType}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{identityMap(rewriter.getContext(), rank)},
        parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d)
            indices.push_back(linalg::IndexOp::create(b, l, d));
          Value element = tensor::ExtractOp::create(
              b, l, data, sourceIndices(b, l, indices));
          linalg::YieldOp::create(b, l, element);
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

} // namespace

void populateSliceLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerSlice>(patterns.getContext());
}

} // namespace odt::codegen
