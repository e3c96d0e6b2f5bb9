//===- LayerNormalization.cpp - onnx.LayerNormalization -> linalg ---------===//
//
// X [d0 .. d_{a-1}, n_a .. n_{r-1}] normalized over the dims from axis a on,
// in the stash type U (X converted to it):
//   mean      = sum(x) / count                      (a reduction)
//   invStdDev = 1 / sqrt(sum((x - mean)^2) / count + epsilon)
//   Y         = T((x - mean) * invStdDev) * Scale + B  (elementwise; Scale
//               and B broadcast to the normalized dims)
// Mean and InvStdDev keep the normalized dims as 1s.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerLayerNormalization
    : OpConversionPattern<onnx::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t rank = xType.getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    Type elementType = xType.getElementType();
    Type stash =
        cast<RankedTensorType>(op.getMean().getType()).getElementType();
    Numeric from = Numeric::of(elementType), to = Numeric::of(stash);
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(axis, rank));
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, x);
    SmallVector<OpFoldResult> kept = keptSizes(sizes, axes);
    AffineMap identity = identityMap(context, rank);
    AffineMap keptMap = keptDimsMap(context, rank, axes);
    auto read = [&](OpBuilder &b, Location l, Value value) {
      return convertScalar(b, l, value, from, to);
    };

    // mean
    Value count = countElements(rewriter, loc, sizes, axes, to);
    Value sumInit = createFilled(rewriter, loc, kept, stash, 0.0);
    Value sums = buildReduction(rewriter, loc, {x}, axes, {sumInit},
                                [&](OpBuilder &b, Location l, ValueRange args) {
                                  return SmallVector<Value>{arith::AddFOp::create(
                                      b, l, args[1], read(b, l, args[0]))};
                                })
                     .front();
    Value meanInit = createEmpty(rewriter, loc, kept, stash);
    Value mean = buildElementwise(
                     rewriter, loc, {sums}, {meanInit},
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       return SmallVector<Value>{
                           arith::DivFOp::create(b, l, args[0], count)};
                     })
                     .front();
    // 1 / sqrt(variance + epsilon)
    Value squaresInit = createFilled(rewriter, loc, kept, stash, 0.0);
    Value squares =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{squaresInit.getType()},
            ValueRange{x, mean}, ValueRange{squaresInit},
            SmallVector<AffineMap>{identity, keptMap, keptMap},
            reductionIterators(rank, axes),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value d = arith::SubFOp::create(b, l, read(b, l, args[0]),
                                              args[1]);
              Value square = arith::MulFOp::create(b, l, d, d);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, args[2], square)));
            })
            .getResult(0);
    Value epsilon = createScalar(rewriter, loc, stash,
                                 op.getEpsilon().convertToDouble());
    Value one = createScalar(rewriter, loc, stash, 1.0);
    Value invInit = createEmpty(rewriter, loc, kept, stash);
    Value invStdDev =
        buildElementwise(
            rewriter, loc, {squares}, {invInit},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value variance = arith::DivFOp::create(b, l, args[0], count);
              Value shifted = arith::AddFOp::create(b, l, variance, epsilon);
              Value root = math::SqrtOp::create(b, l, shifted);
              return SmallVector<Value>{arith::DivFOp::create(b, l, one, root)};
            })
            .front();

    // Y = T((x - mean) * invStdDev) * Scale + B
    SmallVector<Value> inputs = {x, mean, invStdDev};
    SmallVector<AffineMap> maps = {identity, keptMap, keptMap};
    auto addBroadcast = [&](Value parameter) {
      auto [value, map] =
          broadcastOperand(rewriter, loc, parameter, xType.getShape());
      inputs.push_back(value);
      maps.push_back(map);
    };
    addBroadcast(adaptor.getScale());
    bool hasBias = !onnx::isNoValue(adaptor.getB());
    if (hasBias)
      addBroadcast(adaptor.getB());
    maps.push_back(identity);
    Value yInit = createEmpty(rewriter, loc, sizes, elementType);
    Value y =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{yInit.getType()}, inputs,
            ValueRange{yInit}, maps, parallelIterators(rank),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value d = arith::SubFOp::create(b, l, read(b, l, args[0]),
                                              args[1]);
              Value normalized = arith::MulFOp::create(b, l, d, args[2]);
              Value result = arith::MulFOp::create(
                  b, l, convertScalar(b, l, normalized, to, from), args[3]);
              if (hasBias)
                result = arith::AddFOp::create(b, l, result, args[4]);
              linalg::YieldOp::create(b, l, result);
            })
            .getResult(0);

    SmallVector<Value> results = {
        castTensor(rewriter, loc, y, op.getY().getType())};
    for (auto [value, result] :
         llvm::zip(ValueRange{mean, invStdDev},
                   ValueRange{op.getMean(), op.getInvStdDev()})) {
      Value expanded =
          expandReducedDims(rewriter, loc, value, axes, rank, sizes);
      results.push_back(castTensor(rewriter, loc, expanded, result.getType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateLayerNormalizationLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLayerNormalization>(patterns.getContext());
}

} // namespace odt::codegen
