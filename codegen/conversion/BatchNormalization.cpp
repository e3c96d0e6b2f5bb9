//===- BatchNormalization.cpp - onnx.BatchNormalization -> linalg ---------===//
//
// X [N, C, D1..Dn]; per-channel vectors [C] are read with the map
// (n, c, d...) -> (c). Everything computes in X's accumulator type (f32 for
// float16/bfloat16).
//   training_mode = 0: Y = (x - input_mean) / sqrt(input_var + epsilon) *
//     scale + B (as x * alpha + beta with per-channel alpha and beta, like
//     ORT's kernel); running_mean/running_var are input_mean/input_var.
//   training_mode = 1: mean and (biased) var over every dim but C (two
//     reductions), Y normalized with them, running_* = input_* * momentum +
//     batch_* * (1 - momentum).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerBatchNormalization
    : OpConversionPattern<onnx::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::BatchNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t rank = xType.getRank();
    Type elementType = xType.getElementType();
    Type compute = getAccumulatorType(elementType);
    Numeric computeNumeric = Numeric::of(compute);
    Type statType = cast<RankedTensorType>(adaptor.getInputMean().getType())
                        .getElementType();
    Type paramType =
        cast<RankedTensorType>(adaptor.getScale().getType()).getElementType();
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < rank; ++i)
      if (i != 1)
        axes.push_back(i);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, x);
    SmallVector<OpFoldResult> channels = {sizes[1]};
    AffineMap identity = identityMap(context, rank);
    AffineMap channelMap = keptDimsMap(context, rank, axes);
    auto read = [&](OpBuilder &b, Location l, Value value, Type type) {
      return convertScalar(b, l, value, Numeric::of(type), computeNumeric);
    };

    Value mean = adaptor.getInputMean(), var = adaptor.getInputVar();
    Type meanType = statType; // the element type of `mean` and `var`
    // Inference: the running statistics are copies of the inputs.
    auto copy = [&](Value value) {
      Value init = createEmpty(rewriter, loc, channels, statType);
      return buildElementwise(rewriter, loc, {value}, {init},
                              [](OpBuilder &, Location, ValueRange args) {
                                return SmallVector<Value>{args[0]};
                              })
          .front();
    };
    Value runningMean, runningVar;
    if (!op.getTrainingMode()) {
      runningMean = copy(adaptor.getInputMean());
      runningVar = copy(adaptor.getInputVar());
    } else {
      Value count = countElements(rewriter, loc, sizes, axes, computeNumeric);
      Value sumInit = createFilled(rewriter, loc, channels, compute, 0.0);
      Value sums = buildReduction(
                       rewriter, loc, {x}, axes, {sumInit},
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         return SmallVector<Value>{arith::AddFOp::create(
                             b, l, args[1], read(b, l, args[0], elementType))};
                       })
                       .front();
      Value meanInit = createEmpty(rewriter, loc, channels, compute);
      mean = buildElementwise(rewriter, loc, {sums}, {meanInit},
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                return SmallVector<Value>{arith::DivFOp::create(
                                    b, l, args[0], count)};
                              })
                 .front();
      Value squaresInit = createFilled(rewriter, loc, channels, compute, 0.0);
      Value squares =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{squaresInit.getType()},
              ValueRange{x, mean}, ValueRange{squaresInit},
              SmallVector<AffineMap>{identity, channelMap, channelMap},
              reductionIterators(rank, axes),
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value d = arith::SubFOp::create(
                    b, l, read(b, l, args[0], elementType), args[1]);
                Value square = arith::MulFOp::create(b, l, d, d);
                linalg::YieldOp::create(
                    b, l, Value(arith::AddFOp::create(b, l, args[2], square)));
              })
              .getResult(0);
      Value varInit = createEmpty(rewriter, loc, channels, compute);
      var = buildElementwise(rewriter, loc, {squares}, {varInit},
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               return SmallVector<Value>{
                                   arith::DivFOp::create(b, l, args[0], count)};
                             })
                .front();
      meanType = compute;
      // running = input * momentum + batch * (1 - momentum), in the stats'
      // own type.
      double momentum = op.getMomentum().convertToDouble();
      auto blend = [&](Value input, Value batch) {
        Value init = createEmpty(rewriter, loc, channels, statType);
        return buildElementwise(
                   rewriter, loc, {input, batch}, {init},
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value in = read(b, l, args[0], statType);
                     Value m = createScalar(b, l, compute, momentum);
                     Value rest = createScalar(b, l, compute, 1.0 - momentum);
                     Value blended = arith::AddFOp::create(
                         b, l, arith::MulFOp::create(b, l, in, m),
                         arith::MulFOp::create(b, l, args[1], rest));
                     return SmallVector<Value>{convertScalar(
                         b, l, blended, computeNumeric, Numeric::of(statType))};
                   })
            .front();
      };
      runningMean = blend(adaptor.getInputMean(), mean);
      runningVar = blend(adaptor.getInputVar(), var);
    }

    // Y = (x - mean) / sqrt(var + epsilon) * scale + B, computed as ORT's
    // CPU kernel does: per channel, alpha = 1 / sqrt(var + epsilon) * scale
    // and beta = B - mean * alpha, then Y = x * alpha + beta. A division
    // per element (the formula as written) was most of an inference
    // BatchNorm's time.
    Value epsilon =
        createScalar(rewriter, loc, compute, op.getEpsilon().convertToDouble());
    Value one = createScalar(rewriter, loc, compute, 1.0);
    ValueRange factors = buildElementwise(
        rewriter, loc, {mean, var, adaptor.getScale(), adaptor.getB()},
        {createEmpty(rewriter, loc, channels, compute),
         createEmpty(rewriter, loc, channels, compute)},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value shifted = arith::AddFOp::create(
              b, l, read(b, l, args[1], meanType), epsilon);
          Value inverse = arith::DivFOp::create(
              b, l, one, math::SqrtOp::create(b, l, shifted));
          Value alpha = arith::MulFOp::create(b, l, inverse,
                                              read(b, l, args[2], paramType));
          Value beta = arith::SubFOp::create(
              b, l, read(b, l, args[3], paramType),
              arith::MulFOp::create(b, l, read(b, l, args[0], meanType),
                                    alpha));
          return SmallVector<Value>{alpha, beta};
        });
    Value alpha = factors[0], beta = factors[1];
    Value yInit = createEmpty(rewriter, loc, sizes, elementType);
    Value y =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{yInit.getType()},
            ValueRange{x, alpha, beta}, ValueRange{yInit},
            SmallVector<AffineMap>{identity, channelMap, channelMap, identity},
            parallelIterators(rank),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value scaled = arith::MulFOp::create(
                  b, l, read(b, l, args[0], elementType), args[1]);
              Value biased = arith::AddFOp::create(b, l, scaled, args[2]);
              linalg::YieldOp::create(b, l,
                                      convertScalar(b, l, biased,
                                                    computeNumeric,
                                                    Numeric::of(elementType)));
            })
            .getResult(0);
    rewriter.replaceOp(
        op,
        {castTensor(rewriter, loc, y, op.getY().getType()),
         castTensor(rewriter, loc, runningMean, op.getRunningMean().getType()),
         castTensor(rewriter, loc, runningVar, op.getRunningVar().getType())});
    return success();
  }
};

} // namespace

void populateBatchNormalizationLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBatchNormalization>(patterns.getContext());
}

} // namespace odt::codegen
