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

/// The largest array moved to the stack: lowered deallocations make one
/// element per buffer a dealloc considers (tens at most).
constexpr int64_t kMaxScratchElements = 4096;

/// Whether `call` calls a function defined in the module and private to it
/// (bufferization's dealloc_helper), not an entry point or an external one.
bool callsPrivateHelper(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return callee && callee.isPrivate() && !callee.isExternal();
}

/// Collects the deallocs of `value` (through casts) into `deallocs`; false
/// if a use is anything but host scalar access, a cast, a call of a private
/// helper or a dealloc in `block`.
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
    if (isa<memref::LoadOp, memref::StoreOp>(user))
      continue;
    if (auto call = dyn_cast<func::CallOp>(user);
        call && callsPrivateHelper(call))
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
        // Only what lowered deallocations make: small arrays of addresses
        // (index) and ownership flags (i1).
        if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
            !(type.getElementType().isIndex() ||
              type.getElementType().isInteger(1)) ||
            type.getNumElements() > kMaxScratchElements ||
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
