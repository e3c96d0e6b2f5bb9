//===- Pipeline.h - from imported graphs to a loadable model ----*- C++ -*-===//
//
// The stages odt-compile runs, each a readable function:
//   graph   : assemble the training program (state ties), canonicalize
//   linalg  : onnx -> linalg on tensors (codegen/conversion), elementwise
//             fusion, shape functions (codegen/common): the shared middle
//   backend : the CPU's (codegen/cpu/CPUBackend.h): buffers, loops, LLVM,
//             an object, a shared library
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_PIPELINE_H
#define ODT_CODEGEN_PIPELINE_H

#include "codegen/common/RunPipeline.h"
#include "codegen/cpu/CPUBackend.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace odt {

/// Registers every dialect, interface and pass odt-compile and odt-opt use,
/// and the stages as named pipelines (registerCompilerPipelines).
void registerCompilerDialects(mlir::DialectRegistry &registry);
void registerCompilerPasses();

/// The stages as pipelines that odt-opt runs by name: odt-graph-pipeline,
/// odt-linalg-pipeline{optimize=...} and odt-cpu-pipeline{...}.
void registerCompilerPipelines();

/// Stage 1 (on the onnx dialect): ties state updates to their buffers.
void buildGraphPipeline(mlir::OpPassManager &pm);
mlir::LogicalResult
runGraphPipeline(mlir::ModuleOp module,
                 Verification verification = Verification::AtEnd);
/// Stage 2: onnx -> linalg on tensors, fused (unless `optimize` is false:
/// then every op stays its own loop nest).
void buildLinalgPipeline(mlir::OpPassManager &pm, bool optimize);
mlir::LogicalResult
runLinalgPipeline(mlir::ModuleOp module, bool optimize = true,
                  Verification verification = Verification::AtEnd);

} // namespace odt

#endif // ODT_CODEGEN_PIPELINE_H
