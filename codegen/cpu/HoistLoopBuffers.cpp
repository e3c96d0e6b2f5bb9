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
/// nothing else in the loop passes the buffer on (yields or stores it).
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

/// Moves the allocations of `loop`'s body that qualify out of it; true if
/// any moved.
bool hoistFrom(scf::ForOp loop) {
  bool moved = false;
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
    moved = true;
  }
  return moved;
}

struct HoistLoopBuffersPass : impl::HoistLoopBuffersBase<HoistLoopBuffersPass> {
  void runOnOperation() override {
    // Innermost loops first (post-order), so a buffer moved out of an inner
    // loop is considered again in the loop around it.
    bool changed = true;
    while (changed) {
      changed = false;
      getOperation().walk([&](scf::ForOp loop) { changed |= hoistFrom(loop); });
    }
  }
};

} // namespace
} // namespace odt
