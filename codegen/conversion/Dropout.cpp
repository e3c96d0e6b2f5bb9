//===- Dropout.cpp - onnx.Dropout -> linalg -------------------------------===//
//
// Without training_mode (or with it false) Dropout is the identity and its
// mask is all true. In training mode each element draws u in [0, 1) from
// odt's counter-based generator (a SplitMix64-style mix of the seed and the
// element's linear index: stateless, independent of the thread count, and
// not ONNX Runtime's generator; the seed mixes the session's seed and step
// counter with the node's salt, so each step draws a new mask), keeps the element where u >= ratio and scales kept ones by
// 1 / (1 - ratio); ratio = 1 drops everything. ratio and training_mode may
// be run-time values: they are read once, before the loop.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ElementwiseUtil.h"

#include "compiler/training/Roles.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// The 64-bit mix of (seed, index): SplitMix64's finalizer over
/// seed * K1 + (index + 1) * golden ratio.
Value mixSeedAndIndex(OpBuilder &b, Location loc, Value seed, Value index) {
  Type i64 = b.getI64Type();
  auto constant = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc,
                                     b.getIntegerAttr(i64, static_cast<int64_t>(v)));
  };
  Value counter = arith::AddIOp::create(b, loc, index, constant(1));
  Value z = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, seed, constant(0xD1B54A32D192ED03ull)),
      arith::MulIOp::create(b, loc, counter, constant(0x9E3779B97F4A7C15ull)));
  auto xorShift = [&](Value v, uint64_t shift) {
    return arith::XOrIOp::create(
        b, loc, v, arith::ShRUIOp::create(b, loc, v, constant(shift)));
  };
  z = arith::MulIOp::create(b, loc, xorShift(z, 30), constant(0xBF58476D1CE4E5B9ull));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27), constant(0x94D049BB133111EBull));
  return xorShift(z, 31);
}

struct LowerDropout : OpConversionPattern<onnx::DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value trainingMode = adaptor.getTrainingMode();
    bool training = !onnx::isNoValue(trainingMode);
    DenseElementsAttr constantMode;
    if (training && matchPattern(trainingMode, m_Constant(&constantMode)) &&
        !*constantMode.getValues<bool>().begin())
      training = false;

    if (!training)
      return lowerToElementwise(
          rewriter, op, {adaptor.getData()},
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            return {args[0], createScalar(b, l, b.getI1Type(), 1)};
          });

    // Scalars read once: training, ratio, the scale of kept elements.
    auto resultType = cast<RankedTensorType>(op.getOutput().getType());
    Type computeType = getComputeType(resultType.getElementType());
    Value isTraining = extractScalar(rewriter, loc, trainingMode);
    Value ratio = onnx::isNoValue(adaptor.getRatio())
                      ? createScalar(rewriter, loc, computeType, 0.5)
                      : convertFloat(rewriter, loc,
                                     extractComputeScalar(rewriter, loc,
                                                          adaptor.getRatio()),
                                     computeType);
    Value one = createScalar(rewriter, loc, computeType, 1.0);
    Value zero = createScalar(rewriter, loc, computeType, 0.0);
    Value keepAll = arith::OrIOp::create(
        rewriter, loc,
        arith::XOrIOp::create(rewriter, loc, isTraining,
                              createScalar(rewriter, loc, rewriter.getI1Type(), 1)),
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLE, ratio,
                              zero));
    Value belowOne = arith::CmpFOp::create(rewriter, loc,
                                           arith::CmpFPredicate::OLT, ratio, one);
    Value scale = arith::SelectOp::create(
        rewriter, loc, keepAll, one,
        arith::SelectOp::create(
            rewriter, loc, belowOne,
            arith::DivFOp::create(rewriter, loc, one,
                                  arith::SubFOp::create(rewriter, loc, one, ratio)),
            zero));
    // The node's salt (its seed attribute, else a hash of its name) keeps
    // two Dropouts of one step apart; the session's seed and step counter,
    // when the step takes them (odt-add-random-state), make each step's
    // mask new. Without them (a constant mode), the salt alone seeds.
    uint64_t salt = 0;
    if (std::optional<int64_t> seedAttr = op.getSeed())
      salt = static_cast<uint64_t>(*seedAttr);
    else if (auto name = dyn_cast<NameLoc>(loc))
      salt = llvm::xxh3_64bits(name.getName().getValue());
    Value seed = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI64IntegerAttr(static_cast<int64_t>(salt)));
    if (BlockArgument state =
            getRandomStateArgument(op->getParentOfType<func::FuncOp>())) {
      auto element = [&](int64_t position) {
        return tensor::ExtractOp::create(
            rewriter, loc, state,
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, position)});
      };
      seed = mixSeedAndIndex(rewriter, loc,
                             mixSeedAndIndex(rewriter, loc, element(0), seed),
                             element(1));
    }
    // Strides of the linear index, from the (broadcast) sizes of the data.
    SmallVector<OpFoldResult> sizes =
        getBroadcastSizes(rewriter, loc, {adaptor.getData()}, resultType);
    SmallVector<Value> sizeValues;
    for (OpFoldResult size : sizes)
      sizeValues.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));

    return lowerToElementwise(
        rewriter, op, {adaptor.getData()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value linear = arith::ConstantIndexOp::create(b, l, 0);
          for (auto [dim, size] : llvm::enumerate(sizeValues)) {
            linear = arith::MulIOp::create(b, l, linear, size);
            linear = arith::AddIOp::create(b, l, linear,
                                           linalg::IndexOp::create(b, l, dim));
          }
          Value index = arith::IndexCastOp::create(b, l, b.getI64Type(), linear);
          Value bits = mixSeedAndIndex(b, l, seed, index);
          // The top 24 bits as u in [0, 1).
          Value top = arith::ShRUIOp::create(
              b, l, bits, arith::ConstantOp::create(b, l, b.getI64IntegerAttr(40)));
          Value u = arith::MulFOp::create(
              b, l, arith::UIToFPOp::create(b, l, computeType, top),
              createScalar(b, l, computeType, 1.0 / 16777216.0));
          Value drawn = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, u,
                                              ratio);
          Value keep = arith::OrIOp::create(b, l, keepAll, drawn);
          Value scaled = arith::MulFOp::create(b, l, args[0], scale);
          Value output = arith::SelectOp::create(
              b, l, keep, scaled, createScalar(b, l, computeType, 0.0));
          return {output, keep};
        });
  }
};

} // namespace

void populateDropoutLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDropout>(patterns.getContext());
}

} // namespace odt::codegen
