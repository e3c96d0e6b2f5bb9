//===- RunPipeline.h - run a pass pipeline on a module ----------*- C++ -*-===//

#ifndef ODT_CODEGEN_COMMON_RUNPIPELINE_H
#define ODT_CODEGEN_COMMON_RUNPIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace odt {

/// Runs a textual pipeline (passes nested under the module's pass manager)
/// on the module, with MLIR's pass manager options (--mlir-timing,
/// --mlir-print-ir-after=...) when the tool registered them; failures are
/// reported through the context's diagnostics.
mlir::LogicalResult runPassPipeline(mlir::ModuleOp module,
                                    llvm::StringRef pipeline);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_RUNPIPELINE_H
