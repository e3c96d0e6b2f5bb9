//===- RunPipeline.cpp - run a pass pipeline on a module ------------------===//

#include "codegen/common/RunPipeline.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include <mutex>

using namespace mlir;

namespace odt {

LogicalResult runPassPipeline(ModuleOp module,
                              llvm::function_ref<void(OpPassManager &)> build,
                              Verification verification) {
  // MLIR's pass manager options (--mlir-timing, --mlir-print-ir-after=...)
  // exist once registered: a tool registers them to parse its command line,
  // a program that calls the compiler as a library gets them here, at their
  // defaults (applying unregistered ones fails).
  static std::once_flag registered;
  std::call_once(registered, []() {
    registerPassManagerCLOptions();
    registerDefaultTimingManagerCLOptions();
  });
  PassManager pm(module.getContext());
  pm.enableVerifier(verification == Verification::EachPass);
  build(pm);
  if (failed(applyPassManagerCLOptions(pm)))
    return module.emitError("internal error: MLIR's pass manager options "
                            "could not be applied");
  applyDefaultTimingPassManagerCLOptions(pm);
  if (failed(pm.run(module)))
    return failure();
  if (verification == Verification::AtEnd && failed(verify(module)))
    return module.emitError(
        "internal error: a pass left invalid IR (the errors above); "
        "odt-compile --verify-each names the pass");
  return success();
}

} // namespace odt
