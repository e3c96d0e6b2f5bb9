//===- CheckHostCode.cpp - no computation left on the host ----------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CHECKHOSTCODE
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Whether `op`, in a host function, is work over tensor memory that
/// should have become a kernel.
bool isUnmappedComputation(Operation *op) {
  return isa<scf::ParallelOp, linalg::LinalgOp, memref::CopyOp,
             vector::TransferReadOp, vector::TransferWriteOp>(op);
}

/// Whether `memref` is memory the host can read: its own stack or a
/// constant global, through views; or an argument of a helper function
/// (not an entry point: private) that every call passes host memory
/// (bufferization's dealloc_helper, given odt-gpu-host-scratch-on-stack's
/// arrays). Entry points' arguments and allocations are device memory in a
/// GPU build.
bool isHostMemory(Value memref, int depth = 0) {
  Value buffer = getUnderlyingBuffer(memref);
  if (auto argument = dyn_cast<BlockArgument>(buffer)) {
    auto helper = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
    if (!helper || !helper.isPrivate() ||
        !argument.getOwner()->isEntryBlock() || depth > 4)
      return false;
    auto module = helper->getParentOfType<ModuleOp>();
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(helper, module);
    if (!uses)
      return false;
    bool called = false;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      if (!call ||
          !isHostMemory(call.getOperand(argument.getArgNumber()), depth + 1))
        return false;
      called = true;
    }
    return called;
  }
  return isa_and_nonnull<memref::AllocaOp, memref::GetGlobalOp>(
      buffer.getDefiningOp());
}

/// The memref a host op reads or writes element by element, if any.
Value accessedMemRef(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getMemRef();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemRef();
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return load.getBase();
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return store.getBase();
  return nullptr;
}

struct CheckHostCodePass : impl::CheckHostCodeBase<CheckHostCodePass> {
  void runOnOperation() override {
    bool failedAny = false;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      // Device memory accessed by the host: one error per function, at the
      // first access, so that a model's scalar chain is one message.
      Operation *firstAccess = nullptr;
      unsigned accesses = 0;
      function.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
          for (Value operand : launch.getKernelOperands())
            if (isa<MemRefType>(operand.getType()) && isHostMemory(operand)) {
              launch.emitError()
                  << "a kernel of '" << function.getName()
                  << "' takes host memory as an argument (the host's copy "
                     "of a constant global, which odt-gpu-constants-in-"
                     "kernels did not move into the kernel, or the host's "
                     "stack)";
              failedAny = true;
              break;
            }
          return WalkResult::advance();
        }
        if (Value memref = accessedMemRef(op)) {
          if (!isHostMemory(memref) && !accesses++)
            firstAccess = op;
          return WalkResult::advance();
        }
        if (!isUnmappedComputation(op))
          return WalkResult::advance();
        op->emitError() << "'" << op->getName()
                        << "' stayed in the host code of '"
                        << function.getName()
                        << "' instead of becoming a GPU kernel: the GPU "
                           "backend could not map this work to blocks "
                           "and threads";
        failedAny = true;
        return WalkResult::skip();
      });
      if (firstAccess) {
        InFlightDiagnostic error =
            firstAccess->emitError()
            << "'" << firstAccess->getName() << "' in the host code of '"
            << function.getName()
            << "' accesses device memory: the GPU backend left scalar work "
               "on a buffer to the host";
        if (accesses > 1)
          error << " (" << accesses - 1 << " more loads and stores there)";
        failedAny = true;
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
