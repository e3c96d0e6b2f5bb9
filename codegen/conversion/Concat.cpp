//===- Concat.cpp - onnx.Concat -> tensor.insert_slice --------------------===//
//
// Each input is inserted at its offset along the axis into one tensor.empty;
// small static integer results (shape computations) are rebuilt element by
// element so they fold.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerConcat : OpConversionPattern<onnx::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getConcatResult().getType());
    ValueRange inputs = adaptor.getInputs();
    int64_t rank = type.getRank();
    int64_t axis = positiveAxis(op.getAxis(), rank);

    bool small = isSmallIntTensor(type) && llvm::all_of(inputs, [](Value v) {
                   return isSmallIntTensor(v.getType());
                 });
    if (small) {
      // Element (o..., a, i...) comes from the input whose range along the
      // axis holds a.
      Value result = buildFromElements(
          rewriter, loc, type,
          [&](int64_t, ArrayRef<int64_t> coordinates) -> Value {
            int64_t position = coordinates[axis];
            for (Value input : inputs) {
              auto inputType = cast<RankedTensorType>(input.getType());
              int64_t size = inputType.getDimSize(axis);
              if (position < size) {
                SmallVector<Value> indices;
                for (int64_t d = 0; d < rank; ++d)
                  indices.push_back(indexConstant(
                      rewriter, loc, d == axis ? position : coordinates[d]));
                return rewriter.createOrFold<tensor::ExtractOp>(loc, input,
                                                                indices);
              }
              position -= size;
            }
            llvm_unreachable("concatenation shorter than its type");
          });
      rewriter.replaceOp(op, result);
      return success();
    }

    SmallVector<Value> offsets;
    Value offset = indexConstant(rewriter, loc, 0);
    for (Value input : inputs) {
      offsets.push_back(offset);
      offset =
          addIndex(rewriter, loc, offset, dimValue(rewriter, loc, input, axis));
    }
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      return d == axis ? offset : dimValue(rewriter, loc, inputs.front(), d);
    });
    Value result = createEmpty(rewriter, loc, sizes, type.getElementType());
    for (auto [input, inputOffset] : llvm::zip(inputs, offsets)) {
      // An input with a zero dim adds nothing; inserting it at the end of
      // the result (offset == size) would not even verify.
      if (llvm::is_contained(cast<RankedTensorType>(input.getType()).getShape(),
                             0))
        continue;
      SmallVector<OpFoldResult> sliceOffsets(rank, rewriter.getIndexAttr(0));
      sliceOffsets[axis] = toFoldResult(inputOffset);
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(
          rewriter, loc, input, result, sliceOffsets,
          getSizes(rewriter, loc, input), strides);
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateConcatLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConcat>(patterns.getContext());
}

} // namespace odt::codegen
