//===- GatherGrad.cpp - onnx.ms.GatherGrad, GatherElementsGrad -> linalg --===//
//
// Both start from zeros shaped like the forward input (dims from the result
// type, dynamic ones read from the shape tensor) and accumulate dY into it
// with an scf.for, as ORT's kernels do:
//   GatherGrad: for each index position j (indices flattened),
//     a = indices[j] (+ dim if negative, clamped into the dim);
//     dX[o..., a, i...] += dY[o..., j..., i...]  (a slice add per j)
//   GatherElementsGrad: for each dY element e at coordinates c,
//     dX[c with c[axis] = indices[c]] += dY[c]
// Out-of-range indices are clamped so that memory is never touched outside
// dX (ORT reports them as errors).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// An index read from an integer tensor, made non-negative against `dim`
/// and clamped into [0, dim).
Value normalizeIndex(OpBuilder &b, Location loc, Value raw, Value dim) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  index = arith::SelectOp::create(b, loc, negative,
                                  arith::AddIOp::create(b, loc, index, dim), index);
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index,
                                arith::SubIOp::create(b, loc, dim, one));
}

struct LowerGatherGrad : OpConversionPattern<onnx::GatherGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GatherGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getDX().getType());
    Type type = resultType.getElementType();
    Value dY = adaptor.getDY(), indices = adaptor.getIndices();
    int64_t rank = resultType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t q = indicesType.getRank();
    SmallVector<OpFoldResult> sizes =
        sizesFromShapeTensor(rewriter, loc, adaptor.getShape(), resultType);
    Value zeros = createFilled(rewriter, loc, sizes, type, 0.0);
    zeros = castTensor(rewriter, loc, zeros, resultType);
    SmallVector<Value> indexSizes;
    for (int64_t i = 0; i < q; ++i)
      indexSizes.push_back(dimValue(rewriter, loc, indices, i));
    Value count = dimProduct(rewriter, loc, indices, 0, q);
    Value axisDim = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]);
    SmallVector<OpFoldResult> dySizes = getSizes(rewriter, loc, dY);

    // The slice of dX (and of dY) one index position touches, rank-reduced
    // to the dims outside the gathered axis.
    SmallVector<int64_t> sliceShape;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        sliceShape.push_back(resultType.getDimSize(i));
    auto sliceType = RankedTensorType::get(sliceShape, type);
    auto dyType = cast<RankedTensorType>(dY.getType());
    SmallVector<int64_t> dySliceShape;
    for (int64_t i = 0; i < dyType.getRank(); ++i)
      if (i < axis || i >= axis + q)
        dySliceShape.push_back(dyType.getDimSize(i));
    auto dySliceType = RankedTensorType::get(dySliceShape, type);

    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, count, one, ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value j, ValueRange iterArgs) {
          SmallVector<Value> coords = delinearize(b, l, j, indexSizes);
          Value raw = tensor::ExtractOp::create(b, l, indices, coords);
          Value a = normalizeIndex(b, l, raw, axisDim);
          OpFoldResult oneAttr = b.getIndexAttr(1), zeroAttr = b.getIndexAttr(0);
          SmallVector<OpFoldResult> offsets, sliceSizes, strides;
          for (int64_t i = 0; i < rank; ++i) {
            offsets.push_back(i == axis ? OpFoldResult(a) : zeroAttr);
            sliceSizes.push_back(i == axis ? oneAttr : sizes[i]);
            strides.push_back(oneAttr);
          }
          SmallVector<OpFoldResult> dyOffsets, dySlice, dyStrides;
          for (int64_t i = 0; i < dyType.getRank(); ++i) {
            bool inIndex = i >= axis && i < axis + q;
            dyOffsets.push_back(inIndex ? OpFoldResult(coords[i - axis]) : zeroAttr);
            dySlice.push_back(inIndex ? oneAttr : dySizes[i]);
            dyStrides.push_back(oneAttr);
          }
          Value acc = iterArgs[0];
          Value current = tensor::ExtractSliceOp::create(
              b, l, sliceType, acc, offsets, sliceSizes, strides);
          Value grad = tensor::ExtractSliceOp::create(
              b, l, dySliceType, dY, dyOffsets, dySlice, dyStrides);
          grad = castTensor(b, l, grad, sliceType);
          Value init = createEmpty(b, l, getSizes(b, l, current), type);
          Value sum = buildElementwise(
                          b, l, {current, grad}, {init},
                          [](OpBuilder &nb, Location nl, ValueRange args) {
                            return SmallVector<Value>{
                                arith::AddFOp::create(nb, nl, args[0], args[1])};
                          })
                          .front();
          Value updated = tensor::InsertSliceOp::create(b, l, sum, acc, offsets,
                                                        sliceSizes, strides);
          scf::YieldOp::create(b, l, ValueRange{updated});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

struct LowerGatherElementsGrad : OpConversionPattern<onnx::GatherElementsGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GatherElementsGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getDX().getType());
    Type type = resultType.getElementType();
    Value dY = adaptor.getDY(), indices = adaptor.getIndices();
    int64_t rank = resultType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    SmallVector<OpFoldResult> sizes =
        sizesFromShapeTensor(rewriter, loc, adaptor.getShape(), resultType);
    Value zeros =
        castTensor(rewriter, loc, createFilled(rewriter, loc, sizes, type, 0.0),
               resultType);
    SmallVector<Value> dySizes;
    for (int64_t i = 0; i < rank; ++i)
      dySizes.push_back(dimValue(rewriter, loc, dY, i));
    Value count = dimProduct(rewriter, loc, dY, 0, rank);
    Value axisDim = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]);
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, count, one, ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value e, ValueRange iterArgs) {
          SmallVector<Value> coords = delinearize(b, l, e, dySizes);
          Value raw = tensor::ExtractOp::create(b, l, indices, coords);
          SmallVector<Value> target = coords;
          target[axis] = normalizeIndex(b, l, raw, axisDim);
          Value acc = iterArgs[0];
          Value old = tensor::ExtractOp::create(b, l, acc, target);
          Value grad = tensor::ExtractOp::create(b, l, dY, coords);
          Value sum = arith::AddFOp::create(b, l, old, grad);
          scf::YieldOp::create(
              b, l, ValueRange{tensor::InsertOp::create(b, l, sum, acc, target)});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void populateGatherGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGatherGrad, LowerGatherElementsGrad>(patterns.getContext());
}

} // namespace odt::codegen
