//===- CheckKernelCalls.cpp - kernels call only what they define ----------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CHECKKERNELCALLS
#include "codegen/gpu/Passes.h.inc"

namespace {

struct CheckKernelCallsPass : impl::CheckKernelCallsBase<CheckKernelCallsPass> {
  void runOnOperation() override {
    bool failedAny = false;
    for (auto function : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!function.isExternal())
        continue;
      function.emitError()
          << "a kernel calls '" << function.getName()
          << "', which the PTX does not define (odt links no libdevice: "
             "each math op must become arithmetic or an NVPTX instruction)";
      failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
