//===- HoistLoopBuffers.cpp - a loop's scratch buffer allocated once ------===//
//
// See Passes.td. The kernels allocate their scratch (a convolution's column
// panel, a product's packed tile) inside the loops that use it, where
// bufferization put it; once outlined, the loop over a task's iterations
// runs them one after another on one thread, so one buffer serves them
// all.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_HOISTLOOPBUFFERS
#include "codegen/cpu/Passes.h.inc"

namespace {

/// The dealloc of `alloc` in `block`, if it is the buffer's only one and
/// the loop does not yield the buffer.
memref::DeallocOp onlyDeallocIn(memref::AllocOp alloc, Block &block) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers()) {
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (found || dealloc->getBlock() != &block)
        return nullptr;
      found = dealloc;
      continue;
    }
    if (isa<scf::YieldOp>(user))
      return nullptr;
  }
  return found;
}

/// Moves the allocations of `loop`'s body that qualify out of it.
void hoistFrom(scf::ForOp loop) {
  Block &body = *loop.getBody();
  for (Operation &op : llvm::make_early_inc_range(body)) {
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!alloc || !alloc.getSymbolOperands().empty() ||
        llvm::any_of(alloc.getDynamicSizes(), [&](Value size) {
          return !loop.isDefinedOutsideOfLoop(size);
        }))
      continue;
    memref::DeallocOp dealloc = onlyDeallocIn(alloc, body);
    if (!dealloc)
      continue;
    alloc->moveBefore(loop);
    dealloc->moveAfter(loop);
  }
}

struct HoistLoopBuffersPass : impl::HoistLoopBuffersBase<HoistLoopBuffersPass> {
  void runOnOperation() override {
    // Innermost loops first (the walk is post-order): a buffer moved out of
    // an inner loop, with its dealloc, is in the body of the loop around it
    // when that loop's turn comes.
    getOperation().walk([&](scf::ForOp loop) { hoistFrom(loop); });
  }
};

} // namespace
} // namespace odt
