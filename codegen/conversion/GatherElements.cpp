//===- GatherElements.cpp - onnx.GatherElements -> linalg.generic ---------===//
//
// out[p] = data[p with p[axis] = indices[p]]: the index counts from the end
// when negative and every coordinate is clamped into data, so nothing reads
// out of bounds.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGatherElements : OpConversionPattern<onnx::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = type.getRank();
    int64_t axis = positiveAxis(op.getAxis(), rank);
    SmallVector<Value> dataSizes;
    for (int64_t d = 0; d < rank; ++d)
      dataSizes.push_back(dimValue(rewriter, loc, data, d));
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      return dimValue(rewriter, loc, indices, d);
    });
    Value init = createEmpty(rewriter, loc, sizes, type.getElementType());
    Value indicesCast = castTensor(
        rewriter, loc, indices,
        RankedTensorType::get(cast<RankedTensorType>(init.getType()).getShape(),
                              getElementTypeOrSelf(indices.getType())));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{indicesCast},
        ValueRange{init},
        SmallVector<AffineMap>(2, identityMap(rewriter.getContext(), rank)),
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          Value zero = indexConstant(b, l, 0);
          SmallVector<Value> coordinates;
          for (int64_t d = 0; d < rank; ++d) {
            if (d == axis) {
              coordinates.push_back(
                  wrapIndex(b, l, castToIndex(b, l, args[0]), dataSizes[d]));
              continue;
            }
            Value last = subIndex(b, l, dataSizes[d], indexConstant(b, l, 1));
            coordinates.push_back(clampIndex(
                b, l, linalg::IndexOp::create(b, l, d), zero, last));
          }
          linalg::YieldOp::create(
              b, l, tensor::ExtractOp::create(b, l, data, coordinates).getResult());
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

} // namespace

void populateGatherElementsLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGatherElements>(patterns.getContext());
}

} // namespace odt::codegen
