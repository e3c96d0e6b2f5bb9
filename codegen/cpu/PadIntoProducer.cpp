//===- PadIntoProducer.cpp - producers write into their padded buffer -----===//
//
// A convolution's padded input is a tensor.pad of the activation before it
// (ReLU6's output in MobileNetV2, dY in the input gradient). Bufferized as
// it stands, the activation is written to a buffer of its own, the padded
// buffer is filled with zeros and the activation is copied into its
// interior: every element is written twice and read once more than needed,
// and two buffers live where one would do. This pass has the producer
// write its result straight into the interior of the filled padded tensor
// (an extract_slice of it as the producer's output, inserted back where it
// came from, which one-shot bufferization computes in place), so the copy
// and the unpadded buffer are gone. Every other use of the activation reads
// the same values from the interior. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PADINTOPRODUCER
#include "codegen/cpu/Passes.h.inc"

namespace {

struct PadIntoProducerPass : impl::PadIntoProducerBase<PadIntoProducerPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads)
      padIntoProducer(pad);
  }

  void padIntoProducer(tensor::PadOp pad) {
    // The padding: one constant (a zero for a convolution) ...
    Value padding = pad.getConstantPaddingValue();
    TypedAttr paddingAttr;
    if (!padding || !matchPattern(padding, m_Constant(&paddingAttr)))
      return;
    // ... around a source that a linalg op computes into a fresh tensor
    // it does not read (its body ignores the output's old values), in the
    // pad's block.
    auto result = dyn_cast<OpResult>(pad.getSource());
    auto producer =
        result ? dyn_cast<linalg::LinalgOp>(result.getOwner()) : nullptr;
    if (!producer || !producer.hasPureTensorSemantics() ||
        producer->getBlock() != pad->getBlock())
      return;
    OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
    auto fresh = init->get().getDefiningOp<tensor::EmptyOp>();
    if (!fresh || producer.payloadUsesValueFromOperand(init))
      return;
    // Static pads: the padded sizes are computed before the producer.
    SmallVector<OpFoldResult> low = pad.getMixedLowPad();
    SmallVector<OpFoldResult> high = pad.getMixedHighPad();
    if (llvm::any_of(llvm::concat<OpFoldResult>(low, high),
                     [](OpFoldResult f) { return !getConstantIntValue(f); }))
      return;

    OpBuilder b(producer);
    Location loc = pad.getLoc();
    SmallVector<OpFoldResult> sizes = fresh.getMixedSizes();
    SmallVector<OpFoldResult> paddedSizes,
        ones(sizes.size(), b.getIndexAttr(1));
    for (auto [size, before, after] : llvm::zip(sizes, low, high)) {
      AffineExpr s0, s1, s2;
      bindSymbols(b.getContext(), s0, s1, s2);
      paddedSizes.push_back(affine::makeComposedFoldedAffineApply(
          b, loc, s0 + s1 + s2, {size, before, after}));
    }
    Type element = pad.getResultType().getElementType();
    Value empty = tensor::EmptyOp::create(b, loc, paddedSizes, element);
    if (empty.getType() != pad.getResultType())
      empty = tensor::CastOp::create(b, loc, pad.getResultType(), empty);
    Value zero = arith::ConstantOp::create(b, loc, paddingAttr);
    Value filled = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    Value interior = tensor::ExtractSliceOp::create(
        b, loc, cast<RankedTensorType>(init->get().getType()), filled, low,
        sizes, ones);
    init->set(interior);
    if (fresh->use_empty())
      fresh->erase();

    b.setInsertionPoint(pad);
    Value padded = tensor::InsertSliceOp::create(b, loc, pad.getSource(),
                                                 filled, low, sizes, ones);
    pad.replaceAllUsesWith(padded);
    pad.erase();
  }
};

} // namespace
} // namespace odt
