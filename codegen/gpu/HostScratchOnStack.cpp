//===- HostScratchOnStack.cpp - the host's scratch arrays on its stack ----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_HOSTSCRATCHONSTACK
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Collects the deallocs of `value` (through casts) into `deallocs`; false
/// if a use is anything but host scalar access, a cast, a call or a dealloc
/// in `block`.
bool onlyHostUses(Value value, Block *block,
                  SmallVectorImpl<memref::DeallocOp> &deallocs) {
  for (Operation *user : value.getUsers()) {
    if (user->getParentOfType<gpu::LaunchOp>())
      return false;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (dealloc->getBlock() != block)
        return false;
      deallocs.push_back(dealloc);
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(user)) {
      if (!onlyHostUses(cast.getResult(), block, deallocs))
        return false;
      continue;
    }
    if (isa<memref::LoadOp, memref::StoreOp, func::CallOp>(user))
      continue;
    return false;
  }
  return true;
}

struct HostScratchOnStackPass
    : impl::HostScratchOnStackBase<HostScratchOnStackPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      Block &entry = function.getBody().front();
      SmallVector<memref::AllocOp> allocs;
      function.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
      for (memref::AllocOp alloc : allocs) {
        MemRefType type = alloc.getType();
        SmallVector<memref::DeallocOp> deallocs;
        if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
            !onlyHostUses(alloc.getResult(), alloc->getBlock(), deallocs))
          continue;
        OpBuilder builder(&entry, entry.begin());
        auto alloca = memref::AllocaOp::create(builder, alloc.getLoc(), type,
                                               alloc.getAlignmentAttr());
        alloc.getResult().replaceAllUsesWith(alloca.getResult());
        for (memref::DeallocOp dealloc : deallocs)
          dealloc.erase();
        alloc.erase();
      }
    }
  }
};

} // namespace
} // namespace odt
