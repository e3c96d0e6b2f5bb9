//===- CheckHostCode.cpp - no computation left on the host ----------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CHECKHOSTCODE
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Whether `op`, in a host function, is work over tensor memory that
/// should have become a kernel. (Scalar loads and stores also remain on the
/// host today, in most models: the host side that runs them on the device
/// is not built yet, and nothing runs this code on a GPU.)
bool isUnmappedComputation(Operation *op) {
  return isa<scf::ParallelOp, linalg::LinalgOp, memref::CopyOp,
             vector::TransferReadOp, vector::TransferWriteOp>(op);
}

struct CheckHostCodePass : impl::CheckHostCodeBase<CheckHostCodePass> {
  void runOnOperation() override {
    bool failedAny = false;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      function.walk([&](Operation *op) {
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
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
