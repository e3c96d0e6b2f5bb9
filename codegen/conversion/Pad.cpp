//===- Pad.cpp - onnx.Pad -> tensor.pad or linalg.generic -----------------===//
//
// constant: negative pads crop first (extract_slice), then tensor.pad with
// the constant. reflect, edge and wrap: a linalg.generic over the result
// that maps each coordinate back into data (reflected with period
// 2 * (dim - 1), clamped, or modulo dim) and extracts the element.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerPad : OpConversionPattern<onnx::PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> axes;
    if (onnx::isNoValue(adaptor.getAxes())) {
      for (int64_t d = 0; d < rank; ++d)
        axes.push_back(d);
    } else {
      std::optional<SmallVector<int64_t>> values =
          getConstantInts(adaptor.getAxes());
      if (!values)
        return rewriter.notifyMatchFailure(op, "axes are not constant");
      for (int64_t axis : *values)
        axes.push_back(axis < 0 ? axis + rank : axis);
    }
    Value zero = indexConstant(rewriter, loc, 0);
    SmallVector<Value> begin(rank, zero), end(rank, zero), dims;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      begin[axis] = extractIndex(rewriter, loc, adaptor.getPads(), i);
      end[axis] = extractIndex(rewriter, loc, adaptor.getPads(), axes.size() + i);
    }
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(dimValue(rewriter, loc, data, d));
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      return addIndex(rewriter, loc, dims[d],
                      addIndex(rewriter, loc, begin[d], end[d]));
    });
    StringRef mode = op.getMode();

    if (mode == "constant") {
      Value padValue =
          onnx::isNoValue(adaptor.getConstantValue())
              ? createScalar(rewriter, loc, elementType, 0.0)
              : rewriter.createOrFold<tensor::ExtractOp>(
                    loc, adaptor.getConstantValue(),
                    SmallVector<Value>(
                        cast<RankedTensorType>(
                            adaptor.getConstantValue().getType())
                            .getRank(),
                        zero));
      // Crop where pads are negative.
      SmallVector<OpFoldResult> offsets, cropSizes, low, high;
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      bool crops = false;
      for (int64_t d = 0; d < rank; ++d) {
        std::optional<int64_t> b0 = getConstantIntValue(begin[d]);
        std::optional<int64_t> e0 = getConstantIntValue(end[d]);
        crops |= !b0 || !e0 || *b0 < 0 || *e0 < 0;
        Value cropBegin = maxIndex(rewriter, loc,
                                   subIndex(rewriter, loc, zero, begin[d]), zero);
        Value cropEnd = maxIndex(rewriter, loc,
                                 subIndex(rewriter, loc, zero, end[d]), zero);
        offsets.push_back(toFoldResult(cropBegin));
        cropSizes.push_back(toFoldResult(subIndex(
            rewriter, loc, dims[d], addIndex(rewriter, loc, cropBegin, cropEnd))));
        low.push_back(toFoldResult(maxIndex(rewriter, loc, begin[d], zero)));
        high.push_back(toFoldResult(maxIndex(rewriter, loc, end[d], zero)));
      }
      Value source = data;
      if (crops)
        source = tensor::ExtractSliceOp::create(rewriter, loc, data, offsets,
                                                cropSizes, strides);
      Value padded = tensor::PadOp::create(rewriter, loc, Type(), source, low,
                                           high, padValue);
      rewriter.replaceOp(op, castTensor(rewriter, loc, padded, type));
      return success();
    }

    Value init = createEmpty(rewriter, loc, sizes, elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{identityMap(rewriter.getContext(), rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange) {
          Value zero = indexConstant(b, l, 0);
          Value one = indexConstant(b, l, 1);
          SmallVector<Value> coordinates;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = subIndex(b, l, linalg::IndexOp::create(b, l, d), begin[d]);
            Value size = dims[d];
            Value last = subIndex(b, l, size, one);
            auto positiveRem = [&](Value value, Value modulus) {
              Value rem = b.createOrFold<arith::RemSIOp>(l, value, modulus);
              Value negative =
                  cmpIndex(b, l, arith::CmpIPredicate::slt, rem, zero);
              return selectValue(b, l, negative, addIndex(b, l, rem, modulus),
                                 rem);
            };
            Value source;
            if (mode == "edge") {
              source = clampIndex(b, l, i, zero, last);
            } else if (mode == "wrap") {
              source = positiveRem(i, maxIndex(b, l, size, one));
            } else {
              // reflect: period 2 * (size - 1), mirrored in its second half.
              Value period = maxIndex(b, l, addIndex(b, l, last, last), one);
              Value m = positiveRem(i, period);
              Value mirrored = subIndex(b, l, period, m);
              source = selectValue(
                  b, l, cmpIndex(b, l, arith::CmpIPredicate::sle, m, last), m,
                  mirrored);
              source = clampIndex(b, l, source, zero, last);
            }
            coordinates.push_back(source);
          }
          linalg::YieldOp::create(
              b, l, tensor::ExtractOp::create(b, l, data, coordinates).getResult());
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

} // namespace

void populatePadLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerPad>(patterns.getContext());
}

} // namespace odt::codegen
