//===- RunPipeline.h - run a pass pipeline on a module ----------*- C++ -*-===//

#ifndef ODT_CODEGEN_COMMON_RUNPIPELINE_H
#define ODT_CODEGEN_COMMON_RUNPIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace odt {

/// Runs the pipeline that `build` adds to a pass manager on the module,
/// with MLIR's pass manager options (--mlir-timing, --mlir-print-ir-after=...)
/// when the tool registered them; failures are reported through the
/// context's diagnostics.
mlir::LogicalResult
runPassPipeline(mlir::ModuleOp module,
                llvm::function_ref<void(mlir::OpPassManager &)> build);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_RUNPIPELINE_H
