//===- RunPipeline.cpp - run a pass pipeline on a module ------------------===//

#include "codegen/common/RunPipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace odt {

LogicalResult runPassPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(pipeline, pm))) {
    module.emitError() << "internal error: bad pass pipeline: " << pipeline;
    return failure();
  }
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  return pm.run(module);
}

} // namespace odt
