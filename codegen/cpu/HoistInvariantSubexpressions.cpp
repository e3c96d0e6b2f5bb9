//===- HoistInvariantSubexpressions.cpp - per-channel math once -----------===//
//
// An elementwise linalg.generic computes its whole body at every point,
// including the parts that read only inputs broadcast along some of its
// loops: BatchNorm's sqrt(var + eps), its gradient's gamma * rstd / N. In
// the loops LLVM gets, those loads cannot be hoisted (it cannot tell the
// statistics' buffers from the output the loop writes), so every element
// paid a square root and a division. This pass computes each such
// subexpression once, over the loops it depends on, in a generic of its
// own, and feeds the result to the elementwise op as an input. The same
// operations run on the same values, so results do not change. See
// Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_HOISTINVARIANTSUBEXPRESSIONS
#include "codegen/cpu/Passes.h.inc"

namespace {

/// The loops `map` reads.
llvm::SmallBitVector loopsOf(AffineMap map) {
  llvm::SmallBitVector used(map.getNumDims());
  for (AffineExpr expr : map.getResults())
    expr.walk([&](AffineExpr inner) {
      if (auto dim = dyn_cast<AffineDimExpr>(inner))
        used.set(dim.getPosition());
    });
  return used;
}

struct HoistInvariantSubexpressionsPass
    : impl::HoistInvariantSubexpressionsBase<HoistInvariantSubexpressionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk(
        [&](linalg::GenericOp op) { candidates.push_back(op); });
    for (linalg::GenericOp op : candidates)
      hoist(op);
  }

  void hoist(linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0)
      return;
    unsigned numLoops = op.getNumLoops();
    unsigned numInputs = op.getNumDpsInputs();
    Block &body = op.getRegion().front();
    llvm::SmallBitVector all(numLoops, true);

    // The loops each body value varies along: an input's are its map's, an
    // output's (its current value) all of them; an op's the union of its
    // operands' (values from outside the body vary along none).
    DenseMap<Value, llvm::SmallBitVector> varies;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument argument = op.getMatchingBlockArgument(&operand);
      varies[argument] = operand.getOperandNumber() < numInputs
                             ? loopsOf(op.getMatchingIndexingMap(&operand))
                             : all;
    }
    for (Operation &inner : body.without_terminator()) {
      llvm::SmallBitVector along(numLoops);
      if (inner.getNumRegions() != 0 || !isMemoryEffectFree(&inner) ||
          isa<linalg::IndexOp>(inner) || inner.getNumResults() != 1)
        along = all;
      for (Value operand : inner.getOperands())
        if (auto it = varies.find(operand); it != varies.end())
          along |= it->second;
      for (Value result : inner.getResults())
        varies[result] = along;
    }

    // Roots: an op that varies along some loops but not all, used by one
    // that varies along more (or yielded), and whose loops leave out at
    // least min-saving points per value.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<Operation *> roots;
    for (Operation &inner : body.without_terminator()) {
      if (inner.getNumResults() != 1 ||
          !inner.getResult(0).getType().isIntOrFloat())
        continue;
      const llvm::SmallBitVector &along = varies[inner.getResult(0)];
      if (along.none() || along.all())
        continue;
      bool feedsMore = llvm::any_of(inner.getUsers(), [&](Operation *user) {
        return user == body.getTerminator() || user->getNumResults() == 0 ||
               varies[user->getResult(0)] != along;
      });
      int64_t saved = 1;
      for (unsigned d = 0; d < numLoops; ++d)
        if (!along.test(d))
          saved = ShapedType::isDynamic(ranges[d]) || saved >= minSaving
                      ? minSaving
                      : saved * ranges[d];
      if (feedsMore && saved >= minSaving)
        roots.push_back(&inner);
    }
    if (roots.empty())
      return;

    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> loopSizes;
    for (Range range :
         cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
      loopSizes.push_back(range.size);
    SmallVector<Value> newInputs(op.getDpsInputs());
    SmallVector<AffineMap> newMaps;
    for (OpOperand *input : op.getDpsInputOperands())
      newMaps.push_back(op.getMatchingIndexingMap(input));
    for (Operation *root : roots) {
      const llvm::SmallBitVector &along = varies[root->getResult(0)];
      // The root's loops, renumbered 0.. in their order.
      SmallVector<AffineExpr> renumber(numLoops, b.getAffineConstantExpr(0));
      SmallVector<AffineExpr> projection;
      SmallVector<OpFoldResult> sizes;
      unsigned count = 0;
      for (unsigned d = 0; d < numLoops; ++d)
        if (along.test(d)) {
          renumber[d] = b.getAffineDimExpr(count++);
          projection.push_back(b.getAffineDimExpr(d));
          sizes.push_back(loopSizes[d]);
        }
      // The ops the root is computed from, in the body's order, and the
      // inputs they read.
      llvm::SetVector<Operation *> slice;
      SmallVector<unsigned> readInputs;
      SmallVector<Value> pending{root->getResult(0)};
      DenseSet<Value> seen;
      while (!pending.empty()) {
        Value value = pending.pop_back_val();
        if (!seen.insert(value).second)
          continue;
        if (auto argument = dyn_cast<BlockArgument>(value)) {
          if (argument.getOwner() == &body)
            readInputs.push_back(argument.getArgNumber());
          continue;
        }
        Operation *producer = value.getDefiningOp();
        if (producer->getBlock() != &body)
          continue;
        slice.insert(producer);
        llvm::append_range(pending, producer->getOperands());
      }
      llvm::sort(readInputs);
      SmallVector<Operation *> ordered(slice.begin(), slice.end());
      llvm::sort(ordered, [](Operation *x, Operation *y) {
        return x->isBeforeInBlock(y);
      });

      Type element = root->getResult(0).getType();
      Value init = tensor::EmptyOp::create(b, loc, sizes, element);
      SmallVector<Value> sliceInputs;
      SmallVector<AffineMap> sliceMaps;
      for (unsigned index : readInputs) {
        sliceInputs.push_back(op.getDpsInputs()[index]);
        sliceMaps.push_back(
            newMaps[index].replaceDimsAndSymbols(renumber, {}, count, 0));
      }
      sliceMaps.push_back(b.getMultiDimIdentityMap(count));
      auto once = linalg::GenericOp::create(
          b, loc, init.getType(), sliceInputs, ValueRange{init}, sliceMaps,
          SmallVector<utils::IteratorType>(count,
                                           utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nloc, ValueRange arguments) {
            IRMapping mapping;
            for (auto [position, index] : llvm::enumerate(readInputs))
              mapping.map(body.getArgument(index), arguments[position]);
            for (Operation *inner : ordered)
              nb.clone(*inner, mapping);
            linalg::YieldOp::create(nb, nloc,
                                    mapping.lookup(root->getResult(0)));
          });
      newInputs.push_back(once.getResult(0));
      newMaps.push_back(
          AffineMap::get(numLoops, 0, projection, b.getContext()));
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      newMaps.push_back(op.getMatchingIndexingMap(&init));

    auto replacement = linalg::GenericOp::create(
        b, loc, op.getResultTypes(), newInputs, op.getDpsInits(), newMaps,
        op.getIteratorTypesArray());
    replacement->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    replacement.getRegion().takeBody(op.getRegion());
    Block &moved = replacement.getRegion().front();
    for (auto [position, root] : llvm::enumerate(roots)) {
      BlockArgument argument = moved.insertArgument(
          numInputs + position, root->getResult(0).getType(), loc);
      root->getResult(0).replaceAllUsesWith(argument);
    }
    // What only the roots read is dead now.
    for (Operation *inner = moved.getTerminator()->getPrevNode(); inner;) {
      Operation *previous = inner->getPrevNode();
      if (inner->use_empty() && isMemoryEffectFree(inner))
        inner->erase();
      inner = previous;
    }
    op.replaceAllUsesWith(replacement.getResults());
    op.erase();
  }
};

} // namespace
} // namespace odt
