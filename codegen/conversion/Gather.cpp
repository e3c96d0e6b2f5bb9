//===- Gather.cpp - onnx.Gather -> linalg.generic + tensor.extract --------===//
//
// out[o..., j..., i...] = data[o..., indices[j...], i...]: a linalg.generic
// over the result reads the index, counts a negative one from the end,
// clamps it into the dim (nothing reads out of bounds) and extracts the
// element. Small static integer results (Gather(Shape(x), 0)) are built
// element by element so they fold.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGather : OpConversionPattern<onnx::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t rank = dataType.getRank();
    int64_t axis = positiveAxis(op.getAxis(), rank);
    int64_t indicesRank = indicesType.getRank();
    int64_t resultRank = type.getRank();
    Value axisSize = dimValue(rewriter, loc, data, axis);

    // The data coordinates of result element `coordinates`, given the index.
    auto dataCoordinates = [&](ArrayRef<Value> coordinates, Value index) {
      SmallVector<Value> result(coordinates.take_front(axis));
      result.push_back(index);
      for (Value c : coordinates.drop_front(axis + indicesRank))
        result.push_back(c);
      return result;
    };

    if (isSmallIntTensor(type) && isSmallIntTensor(dataType) &&
        indicesType.hasStaticShape()) {
      Value result = buildFromElements(
          rewriter, loc, type, [&](int64_t, ArrayRef<int64_t> coordinates) {
            SmallVector<Value> position, indexPosition;
            for (int64_t c : coordinates)
              position.push_back(indexConstant(rewriter, loc, c));
            for (int64_t d = 0; d < indicesRank; ++d)
              indexPosition.push_back(position[axis + d]);
            Value index = castToIndex(
                rewriter, loc,
                rewriter.createOrFold<tensor::ExtractOp>(loc, indices,
                                                         indexPosition));
            index = wrapIndex(rewriter, loc, index, axisSize);
            return rewriter.createOrFold<tensor::ExtractOp>(
                loc, data, dataCoordinates(position, index));
          });
      rewriter.replaceOp(op, result);
      return success();
    }

    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      if (d < axis)
        return dimValue(rewriter, loc, data, d);
      if (d < axis + indicesRank)
        return dimValue(rewriter, loc, indices, d - axis);
      return dimValue(rewriter, loc, data, d - indicesRank + 1);
    });
    Value init = createEmpty(rewriter, loc, sizes, type.getElementType());
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> indexDims;
    for (int64_t d = 0; d < indicesRank; ++d)
      indexDims.push_back(getAffineDimExpr(axis + d, context));
    SmallVector<AffineMap> maps = {
        AffineMap::get(resultRank, 0, indexDims, context),
        identityMap(context, resultRank)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{indices},
        ValueRange{init}, maps, parallelIterators(resultRank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coordinates;
          for (int64_t d = 0; d < resultRank; ++d)
            coordinates.push_back(linalg::IndexOp::create(b, l, d));
          Value index = wrapIndex(b, l, castToIndex(b, l, args[0]), axisSize);
          Value element = tensor::ExtractOp::create(
              b, l, data, dataCoordinates(coordinates, index));
          linalg::YieldOp::create(b, l, element);
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

} // namespace

void populateGatherLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGather>(patterns.getContext());
}

} // namespace odt::codegen
