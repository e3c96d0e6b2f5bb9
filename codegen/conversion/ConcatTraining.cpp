//===- ConcatTraining.cpp - ConcatTraining, SplitTraining -> tensor -------===//
//
// ConcatTraining: the inputs inserted one after the other along axis into a
// tensor.empty; per_input_length holds their lengths there (int64).
// SplitTraining: one tensor.extract_slice per output at the running offset;
// lengths static in the result types, else read from the split tensor (or
// the equal parts of an empty one).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerConcatTraining : OpConversionPattern<onnx::ConcatTrainingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConcatTrainingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getConcatResult().getType());
    int64_t rank = resultType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    ValueRange inputs = adaptor.getInputs();
    SmallVector<Value> lengths;
    Value total = indexConstant(rewriter, loc, 0);
    for (Value input : inputs) {
      Value length = dimValue(rewriter, loc, input, axis);
      lengths.push_back(length);
      total = arith::AddIOp::create(rewriter, loc, total, length);
    }
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, inputs.front());
    sizes[axis] = total;
    Value result = emptyLike(rewriter, loc, resultType, sizes);
    Value offset = indexConstant(rewriter, loc, 0);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (auto [input, length] : llvm::zip(inputs, lengths)) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = offset;
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result, offsets,
                                             getSizes(rewriter, loc, input),
                                             strides);
      offset = arith::AddIOp::create(rewriter, loc, offset, length);
    }
    SmallVector<Value> elements;
    for (Value length : lengths)
      elements.push_back(arith::IndexCastOp::create(rewriter, loc,
                                                    rewriter.getI64Type(), length));
    Value perInput = tensor::FromElementsOp::create(
        rewriter, loc,
        RankedTensorType::get({(int64_t)elements.size()}, rewriter.getI64Type()),
        elements);
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, result, resultType),
             castTensor(rewriter, loc, perInput, op.getPerInputLength().getType())});
    return success();
  }
};

struct LowerSplitTraining : OpConversionPattern<onnx::SplitTrainingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SplitTrainingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), split = adaptor.getSplit();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    auto splitType = cast<RankedTensorType>(split.getType());
    bool equalParts = splitType.getDimSize(0) == 0;
    unsigned parts = op.getNumResults();
    Value dim = dimValue(rewriter, loc, input, axis);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    Value offset = indexConstant(rewriter, loc, 0);
    SmallVector<Value> results;
    for (unsigned i = 0; i < parts; ++i) {
      auto resultType = cast<RankedTensorType>(op->getResult(i).getType());
      Value length;
      if (!resultType.isDynamicDim(axis)) {
        length = indexConstant(rewriter, loc, resultType.getDimSize(axis));
      } else if (!equalParts) {
        length = extractIndex(rewriter, loc, split, i);
      } else {
        // ORT: the first (dim % parts) outputs get one more element.
        Value count = indexConstant(rewriter, loc, parts);
        Value chunk = arith::DivUIOp::create(rewriter, loc, dim, count);
        Value left = arith::RemUIOp::create(rewriter, loc, dim, count);
        Value extra = arith::CmpIOp::create(rewriter, loc,
                                            arith::CmpIPredicate::ult,
                                            indexConstant(rewriter, loc, i), left);
        length = arith::AddIOp::create(
            rewriter, loc, chunk,
            arith::SelectOp::create(rewriter, loc, extra,
                                    indexConstant(rewriter, loc, 1),
                                    indexConstant(rewriter, loc, 0)));
      }
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = offset;
      SmallVector<OpFoldResult> sliceSizes = sizes;
      sliceSizes[axis] = length;
      Value slice = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets,
                                                   sliceSizes, strides);
      results.push_back(castTensor(rewriter, loc, slice, resultType));
      offset = arith::AddIOp::create(rewriter, loc, offset, length);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateConcatTrainingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConcatTraining, LowerSplitTraining>(patterns.getContext());
}

} // namespace odt::codegen
