//===- RunPipeline.cpp - run a pass pipeline on a module ------------------===//

#include "codegen/common/RunPipeline.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace odt {

LogicalResult runPassPipeline(ModuleOp module,
                              llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  return pm.run(module);
}

} // namespace odt
