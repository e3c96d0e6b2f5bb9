//===- Pipeline.h - from imported graphs to a loadable model ----*- C++ -*-===//
//
// The stages odt-compile runs, each a readable function:
//   graph   : assemble the training program (state ties), canonicalize
//   linalg  : onnx -> linalg on tensors, elementwise fusion
//   llvm    : destination passing, bufferization, loops, LLVM dialect,
//             packed entry points
//   codegen : LLVM IR, O3, host object (TargetMachine), descriptor embedded
//   link    : shared library through lld, in process
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_PIPELINE_H
#define ODT_CODEGEN_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
}

namespace odt {

/// Registers every dialect, interface and pass odt-compile and odt-opt use.
void registerCompilerDialects(mlir::DialectRegistry &registry);
void registerCompilerPasses();

/// Stage 1 (on the onnx dialect): ties state updates to their buffers.
mlir::LogicalResult runGraphPipeline(mlir::ModuleOp module);
/// Stage 2: onnx -> linalg on tensors, fused (unless `optimize` is false:
/// then every op stays its own loop nest).
mlir::LogicalResult runLinalgPipeline(mlir::ModuleOp module,
                                      bool optimize = true);
/// Stage 3: tensors -> buffers -> LLVM dialect with packed entry points
/// named `<prefix>_<entry>`. Without `optimize`, products stay plain loops
/// and exp calls libm: the reference build that the optimized one is
/// checked against.
mlir::LogicalResult runLLVMPipeline(mlir::ModuleOp module,
                                    const std::string &prefix,
                                    bool optimize = true);

/// Translates the LLVM-dialect module to LLVM IR, adds the descriptor as the
/// exported globals `<prefix>_descriptor` and `<prefix>_descriptor_size`, and
/// optimizes it for the host CPU at O3.
std::unique_ptr<llvm::Module>
translateAndOptimize(mlir::ModuleOp module, llvm::LLVMContext &context,
                     const std::vector<uint8_t> &descriptor,
                     const std::string &prefix, std::string &error);

/// Emits a relocatable PIC object (or assembly text) for the host.
bool emitObject(llvm::Module &module, bool assembly, std::string &bytes,
                std::string &error);

/// Links `objectPath` into the shared library `libraryPath` with lld.
bool linkSharedLibrary(const std::string &objectPath,
                       const std::string &libraryPath, std::string &error);

} // namespace odt

#endif // ODT_CODEGEN_PIPELINE_H
