//===- CumSum.cpp - onnx.CumSum -> linalg ---------------------------------===//
//
// y[.., i, ..] = sum over j of x[.., j, ..] where j <= i (j < i exclusive;
// j >= i, j > i reversed), as a scan: an scf.for over the positions along
// the axis, in the order of the sum, carrying the running sum of one slice
// (the axis' extent 1) and the result; each step adds the position's slice
// of x to the running sum (a linalg.generic over the slice) and inserts the
// sum before or after (exclusive or not) at the position. Linear in the
// axis length: the segment sums of an EmbeddingBag's rewrite scan one
// position per index, where a quadratic form (a sum over j <= i for every
// i) took 10^10 steps at 10^5 indices. Each sum adds the terms from the
// scan's start, one at a time, as ONNX's reference does. float16/bfloat16
// accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerCumSum : OpConversionPattern<onnx::CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> axis = op.getConstantAxis();
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "the axis is not a constant");
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t rank = xType.getRank();
    Type elementType = xType.getElementType();
    Numeric numeric = Numeric::of(elementType);
    Numeric compute = numeric;
    compute.type = getAccumulatorType(numeric.type);
    bool reverse = op.getReverse(), exclusive = op.getExclusive();

    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, x);
    SmallVector<OpFoldResult> sliceSizes = sizes;
    sliceSizes[*axis] = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> unitStrides(rank, rewriter.getIndexAttr(1));
    // Every position is written by its step: the results need no fill.
    Value sums = tensor::EmptyOp::create(rewriter, loc, sizes, compute.type);
    Value running = createFilled(rewriter, loc, sliceSizes, compute.type, 0.0);
    auto sliceType = cast<RankedTensorType>(running.getType());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value length = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[*axis]);
    Value last =
        reverse ? arith::SubIOp::create(rewriter, loc, length, one).getResult()
                : Value();
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, length, one, ValueRange{sums, running},
        [&](OpBuilder &b, Location l, Value step, ValueRange carried) {
          // The position the step sums: from the end when reversed.
          Value position =
              reverse ? arith::SubIOp::create(b, l, last, step).getResult()
                      : step;
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[*axis] = position;
          Value slice = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get(sliceType.getShape(), elementType), x,
              offsets, sliceSizes, unitStrides);
          // An exclusive sum is the running sum before this slice: written
          // first, so the addition below can update it in place.
          Value written;
          auto write = [&](Value sum) {
            written = tensor::InsertSliceOp::create(
                b, l, sum, carried[0], offsets, sliceSizes, unitStrides);
          };
          if (exclusive)
            write(carried[1]);
          Value next =
              linalg::GenericOp::create(
                  b, l, TypeRange{sliceType}, ValueRange{slice},
                  ValueRange{carried[1]}, SmallVector<AffineMap>(2, identity),
                  SmallVector<utils::IteratorType>(
                      rank, utils::IteratorType::parallel),
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value value = readAs(nb, nl, args[0], elementType, compute);
                    linalg::YieldOp::create(nb, nl,
                                            createAdd(nb, nl, args[1], value));
                  })
                  .getResult(0);
          if (!exclusive)
            write(next);
          scf::YieldOp::create(b, l, ValueRange{written, next});
        });
    Value y = convertTensor(rewriter, loc, loop.getResult(0), elementType);
    rewriter.replaceOp(op, castTensor(rewriter, loc, y, op.getY().getType()));
    return success();
  }
};

} // namespace

void populateCumSumLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCumSum>(patterns.getContext());
}

} // namespace odt::codegen
