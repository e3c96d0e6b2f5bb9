//===- RunPipeline.h - run a pass pipeline on a module ----------*- C++ -*-===//

#ifndef ODT_CODEGEN_COMMON_RUNPIPELINE_H
#define ODT_CODEGEN_COMMON_RUNPIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace odt {

/// When a pipeline checks the IR's invariants (the ops' verifiers).
enum class Verification {
  /// Once, when the pipeline ends: a pass that broke an invariant is still
  /// reported before the IR goes further, as an internal error. Verifying
  /// after every pass walked resnet18_cifar's whole module after each of
  /// ~60 passes: 15% of its compile time (docs/decisions.md).
  AtEnd,
  /// After every pass, naming the pass that broke the invariant
  /// (odt-compile --verify-each; the suites that hunt crashes use it).
  EachPass,
};

/// Runs the pipeline that `build` adds to a pass manager on the module,
/// with MLIR's pass manager options (--mlir-timing, --mlir-print-ir-after=...)
/// when the tool registered them; failures are reported through the
/// context's diagnostics.
mlir::LogicalResult
runPassPipeline(mlir::ModuleOp module,
                llvm::function_ref<void(mlir::OpPassManager &)> build,
                Verification verification = Verification::AtEnd);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_RUNPIPELINE_H
