//===- DistributeParallelLoops.cpp - parallel loops on blocks of threads --===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_DISTRIBUTEPARALLELLOOPS
#include "codegen/gpu/Passes.h.inc"

namespace {

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *context,
                                      gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                              identity);
}

/// Replaces `loop` (no results: linalg's loops reduce into memrefs) by a
/// nest of scf.for over its dims, run sequentially by its thread.
LogicalResult lowerToSequentialLoops(IRRewriter &rewriter,
                                     scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return loop.emitError("odt-gpu-distribute-parallel-loops: a nested "
                          "parallel loop with results is not supported");
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inductionVariables;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto sequential =
        scf::ForOp::create(rewriter, loop.getLoc(), lower, upper, step);
    inductionVariables.push_back(sequential.getInductionVar());
    rewriter.setInsertionPointToStart(sequential.getBody());
  }
  // The body goes before the innermost loop's yield; its own terminator
  // (an empty scf.reduce) goes away.
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  Block *innermost = rewriter.getInsertionBlock();
  rewriter.inlineBlockBefore(body, innermost->getTerminator(),
                             inductionVariables);
  rewriter.eraseOp(loop);
  return success();
}

struct DistributeParallelLoopsPass
    : impl::DistributeParallelLoopsBase<DistributeParallelLoopsPass> {
  using DistributeParallelLoopsBase::DistributeParallelLoopsBase;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError(
          "odt-gpu-distribute-parallel-loops: block-size must be 1 to 1024");
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    MLIRContext *context = &getContext();
    for (scf::ParallelOp loop : outermost) {
      // Loops nested in this one (none come from linalg's lowering, which
      // makes one parallel loop per op) run in each thread.
      SmallVector<scf::ParallelOp> nested;
      loop.getBody()->walk(
          [&](scf::ParallelOp inner) { nested.push_back(inner); });
      // Innermost first (the walk's post-order), so each is gone before
      // the loop around it is rewritten.
      for (scf::ParallelOp inner : nested)
        if (failed(lowerToSequentialLoops(rewriter, inner)))
          return signalPassFailure();
      // Collapsing builds a new loop where `loop` was (after the index
      // arithmetic it needs) and erases `loop`.
      scf::ParallelOp collapsed = loop;
      if (loop.getNumLoops() > 1) {
        Operation *next = loop->getNextNode();
        std::vector<unsigned> all(loop.getNumLoops());
        std::iota(all.begin(), all.end(), 0);
        rewriter.setInsertionPoint(loop);
        collapseParallelLoops(rewriter, loop, {all});
        collapsed = dyn_cast_or_null<scf::ParallelOp>(next->getPrevNode());
        if (!collapsed) {
          getOperation().emitError("odt-gpu-distribute-parallel-loops: "
                                   "collapsing a loop lost it");
          return signalPassFailure();
        }
      }
      auto [blocks, threads] = scf::tileParallelLoop(collapsed, {blockSize},
                                                     /*noMinMaxBounds=*/true);
      if (failed(gpu::setMappingAttr(
              blocks, {mapTo(context, gpu::Processor::BlockX)})) ||
          failed(gpu::setMappingAttr(
              threads, {mapTo(context, gpu::Processor::ThreadX)})))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace odt
