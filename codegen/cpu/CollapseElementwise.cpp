//===- CollapseElementwise.cpp - elementwise loops over fewer dims --------===//
//
// See Passes.td. An elementwise op over an image's H x W (or a weight's
// K x C x kh x kw) is as many nested loops, the innermost one short: LLVM
// left 3-wide rows scalar and emitted a loop nest per parameter in the
// optimizer's update, and odt-vectorize-rows filled half a vector register
// on 8-wide rows. Dims that every operand keeps contiguous, in order, become
// one loop over a collapsed view of each buffer.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_COLLAPSEELEMENTWISE
#include "codegen/cpu/Passes.h.inc"

namespace {

/// The groups of `map`'s results (a projected permutation) that the loop dim
/// groups `groups` make: consecutive results whose dims share a group.
SmallVector<ReassociationIndices>
resultGroups(AffineMap map, ArrayRef<ReassociationIndices> groups) {
  SmallVector<unsigned> groupOfDim(map.getNumDims());
  for (auto [index, group] : llvm::enumerate(groups))
    for (int64_t dim : group)
      groupOfDim[dim] = index;
  SmallVector<ReassociationIndices> result;
  std::optional<unsigned> previous;
  for (unsigned position = 0; position < map.getNumResults(); ++position) {
    unsigned group = groupOfDim[map.getDimPosition(position)];
    if (!previous || *previous != group)
      result.emplace_back();
    result.back().push_back(position);
    previous = group;
  }
  return result;
}

/// Whether the loop dim groups `groups` can be collapsed in `op`: each is
/// contiguous and in order in every indexing map, and every buffer keeps
/// the dims of a group contiguous in memory.
bool canCollapse(linalg::LinalgOp op, ArrayRef<ReassociationIndices> groups) {
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), groups))
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    SmallVector<ReassociationIndices> reassociation =
        resultGroups(op.getMatchingIndexingMap(&operand), groups);
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, reassociation))
      return false;
  }
  return true;
}

/// The loop dim groups to collapse `op`'s iteration space into: runs of
/// consecutive dims, each as long as canCollapse allows; empty when no run
/// has two dims.
SmallVector<ReassociationIndices> collapsibleGroups(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  // Joins each dim to the group before it while that is allowed; a check
  // considers the one candidate group alone (the others stay single dims,
  // which every map preserves).
  SmallVector<ReassociationIndices> joined;
  for (unsigned dim = 0; dim < loops; ++dim) {
    if (!joined.empty()) {
      ReassociationIndices candidate = joined.back();
      candidate.push_back(dim);
      SmallVector<ReassociationIndices> trial;
      for (unsigned other = 0; other < loops; ++other)
        if (other < candidate.front() || other > dim)
          trial.push_back({other});
        else if (other == candidate.front())
          trial.push_back(candidate);
      if (canCollapse(op, trial)) {
        joined.back() = candidate;
        continue;
      }
    }
    joined.push_back({dim});
  }
  if (joined.size() == loops)
    return {};
  return joined;
}

/// Whether `op` is an elementwise op on buffers this pass collapses: every
/// loop parallel, every map a projected permutation, no use of the loop
/// positions, and no fill of an output right before it (odt-parallelize-
/// elementwise and odt-vectorize-rows join such a fill to the op by the
/// output buffer itself, which a collapsed view would hide).
bool isCandidate(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp, linalg::CopyOp>(op) ||
      !op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getNumParallelLoops() != op.getNumLoops() || op.hasIndexSemantics())
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return false;
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  return !(fill &&
           llvm::is_contained(op.getDpsInits(), fill.getOutputs()[0]));
}

struct CollapseElementwisePass
    : impl::CollapseElementwiseBase<CollapseElementwisePass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      SmallVector<ReassociationIndices> groups = collapsibleGroups(op);
      if (groups.empty())
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
      shareViews(collapsed->collapsedOp);
    }
  }

  /// One collapsed view per buffer: a weight updated in place is read and
  /// written through the same view, as it was through the same buffer
  /// (two views made two pointers, which LLVM must assume may overlap
  /// partly).
  static void shareViews(linalg::LinalgOp op) {
    SmallVector<memref::CollapseShapeOp> views;
    for (OpOperand &operand : op->getOpOperands()) {
      auto view = operand.get().getDefiningOp<memref::CollapseShapeOp>();
      if (!view)
        continue;
      auto same = llvm::find_if(views, [&](memref::CollapseShapeOp other) {
        return other.getSrc() == view.getSrc() &&
               other.getType() == view.getType() &&
               other.getReassociation() == view.getReassociation();
      });
      if (same == views.end()) {
        views.push_back(view);
        continue;
      }
      operand.set(*same);
      if (view->use_empty())
        view->erase();
    }
  }
};

} // namespace
} // namespace odt
