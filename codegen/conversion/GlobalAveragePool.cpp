//===- GlobalAveragePool.cpp - onnx.GlobalAveragePool -> linalg -----------===//
//
// linalg.reduce (addf) over the spatial dims into [N, C], a division by
// their product (tensor.dim where dynamic), and an expand_shape to
// [N, C, 1, ...]. f16/bf16 sum in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/NNUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGlobalAveragePool : OpConversionPattern<onnx::GlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!resultType || !xType || xType.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "X must be ranked, rank >= 3");
    Value x = adaptor.getX();
    int64_t rank = xType.getRank();
    Type elementType = xType.getElementType();
    Type accType = getComputeType(elementType);
    SmallVector<IndexValue> sizes = getIndexSizes(rewriter, loc, x);

    SmallVector<OpFoldResult> reducedSizes = {sizes[0].get(), sizes[1].get()};
    Value init = createFilled(rewriter, loc, reducedSizes, accType, 0.0);
    SmallVector<int64_t> dims;
    IndexValue count = IndexValue::constant(rewriter, loc, 1);
    for (int64_t d = 2; d < rank; ++d) {
      dims.push_back(d);
      count = count * sizes[d];
    }
    Value sum = linalg::ReduceOp::create(
                    rewriter, loc, ValueRange{x}, ValueRange{init}, dims,
                    [&](OpBuilder &nb, Location l, ValueRange args) {
                      Value in = convertScalar(nb, l, args[0], accType);
                      linalg::YieldOp::create(
                          nb, l, Value(arith::AddFOp::create(nb, l, args[1], in)));
                    })
                    .getResult(0);
    Value divisor = arith::SIToFPOp::create(
        rewriter, loc, accType,
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                   count.materialize()));
    Value empty = createEmpty(rewriter, loc, reducedSizes, elementType);
    Value mean = buildElementwise(
                     rewriter, loc, {sum}, {empty},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       Value q = arith::DivFOp::create(nb, l, args[0], divisor);
                       return SmallVector<Value>{
                           convertScalar(nb, l, q, elementType)};
                     })
                     .front();

    // [N, C] -> [N, C, 1, ...]
    SmallVector<ReassociationIndices> groups = {{0}, {}};
    SmallVector<OpFoldResult> outSizes = reducedSizes;
    SmallVector<int64_t> shape = {xType.getDimSize(0), xType.getDimSize(1)};
    for (int64_t d = 1; d < rank; ++d) {
      groups[1].push_back(d);
      if (d >= 2) {
        outSizes.push_back(rewriter.getIndexAttr(1));
        shape.push_back(1);
      }
    }
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, elementType), mean, groups,
        outSizes);
    rewriter.replaceOp(op, castTensor(rewriter, loc, expanded, resultType));
    return success();
  }
};

} // namespace

void populateGlobalAveragePoolLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGlobalAveragePool>(patterns.getContext());
}

} // namespace odt::codegen
