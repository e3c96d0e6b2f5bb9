//===- CPUBackend.h - linalg to a loadable object for a CPU -----*- C++ -*-===//
//
// The CPU backend's stages after the shared middle:
//   llvm    : destination passing, bufferization, loops, LLVM dialect,
//             packed entry points (runLLVMPipeline)
//   codegen : LLVM IR with the descriptor embedded, optimized and emitted
//             as an object, in parts on threads (ParallelCodegen.cpp)
//   link    : shared library through lld, in process
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_CPUBACKEND_H
#define ODT_CODEGEN_CPU_CPUBACKEND_H

#include "codegen/common/RunPipeline.h"
#include "codegen/cpu/CPUTarget.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm
namespace mlir {
class OpPassManager;
} // namespace mlir

namespace odt {

/// The machine the generated code is for. All empty: this host, its CPU
/// and every feature it has. A triple (aarch64-linux-gnu, x86_64-linux-gnu)
/// cross-compiles: `cpu` defaults to the target's generic CPU, `features`
/// adds or removes features ("+avx2,-avx512f"; "+sve").
struct CodegenTarget {
  std::string triple, cpu, features;
};

/// A new TargetMachine for `target`, or null with `error` saying what is
/// wrong: an unknown triple, CPU or feature.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CodegenTarget &target, std::string &error);
/// The same, made once per distinct target and kept (for the driver's
/// thread; threads of their own create theirs).
llvm::TargetMachine *getTargetMachine(const CodegenTarget &target,
                                      std::string &error);

/// What odt-compile's kernel options override, to compare kernels on one
/// model: every product (convolution) that the named kernel can compute
/// gets it, the others keep the selected ones; remarks say at each op what
/// it got and why.
struct KernelSelection {
  /// packed, direct, dots or swapped (odt-select-contraction-kernels'
  /// force-kernel); empty: the selection's.
  std::string contractionKernel;
  bool contractionRemarks = false;
  /// linalg, image_columns, image_partials or scattered_columns
  /// (odt-select-convolution-kernels' force-kernel); empty: the selection's.
  std::string convolutionKernel;
  bool convolutionRemarks = false;
};

/// What the CPU backend's pass pipeline needs to know of the target.
struct CPUPipelineOptions {
  /// Without it, products stay plain loops and exp calls libm: the
  /// reference build that the optimized one is checked against.
  bool optimize = true;
  /// The resolved target (its vector tile and bf16 support, CPUTarget.h),
  /// recorded in the module's odt.target by odt-set-cpu-target for the
  /// passes to read; without bf16 in hardware odt-expand-bf16 expands the
  /// conversions into integer ops.
  CPUTargetInfo target{"",
                       "",
                       "",
                       /*vectorWidth=*/8,
                       /*tileRows=*/6,
                       /*nativeBFloat16=*/false};
  /// Packed entry points are named `<prefix>_<entry>`.
  std::string prefix = "odt_model";
  /// Overrides of the kernel selection, and its remarks.
  KernelSelection selection;
  /// Non-null: builds the loops of the linalg ops left after bufferization
  /// instead of the CPU's own (step 5), to run another backend's loop
  /// structure on this CPU (GPU loops on the CPU: Driver.h).
  std::function<void(mlir::OpPassManager &)> buildLoops;
  /// Passes run right after bufferization, before buffers are freed and
  /// planned into the arena (a GPU build forms its kernels' loops there,
  /// while each intermediate is still its own allocation, which the GPU
  /// loop passes know to be separate memory).
  std::function<void(mlir::OpPassManager &)> buildBufferLoops;
  /// Passes run after the deallocation pipeline, before the arena is
  /// planned (a GPU build keeps the host's own scratch arrays on its stack).
  std::function<void(mlir::OpPassManager &)> buildAfterDeallocation;
  /// Passes run last, after the entry points are packed (a GPU build moves
  /// its kernels' PTX out of the module, for the descriptor).
  std::function<void(mlir::OpPassManager &)> buildFinish;
};

/// Stage 3 as a pass pipeline: tensors -> buffers -> LLVM dialect with
/// packed entry points. Registered as odt-cpu-pipeline{...} for odt-opt.
void buildCPUPipeline(mlir::OpPassManager &pm,
                      const CPUPipelineOptions &options);
void registerCPUPipeline();

/// The pipeline options for `target` (its vector registers and features),
/// or failure with `error` saying why the target is unusable.
mlir::FailureOr<CPUPipelineOptions>
getCPUPipelineOptions(const CodegenTarget &target, bool optimize,
                      const std::string &prefix, std::string &error);

/// Stage 3 run on the module with these options.
mlir::LogicalResult
runLLVMPipeline(mlir::ModuleOp module, const CPUPipelineOptions &options,
                Verification verification = Verification::AtEnd);

/// Translates the LLVM-dialect module to LLVM IR for the target and adds the
/// descriptor as the exported globals `<prefix>_descriptor` and
/// `<prefix>_descriptor_size`.
std::unique_ptr<llvm::Module>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  const std::vector<uint8_t> &descriptor,
                  const std::string &prefix, const CodegenTarget &target,
                  std::string &error);

/// Runs LLVM's optimization pipeline for the machine on the module.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine);

/// Emits a relocatable PIC object (or assembly text) for the machine.
bool emitObject(llvm::Module &module, bool assembly,
                llvm::TargetMachine &machine, std::string &bytes,
                std::string &error);

/// What compileToObject did: the module's size and how it was cut.
struct CodegenSummary {
  size_t instructions = 0;
  unsigned parts = 1, threads = 1;
};

/// Optimizes the translated module and emits one relocatable object. A large
/// module is cut into parts (by its size: the object does not depend on the
/// thread count) that are optimized and emitted on up to `threads` threads
/// (0: one per hardware thread), then joined with lld -r; symbols shared
/// between parts become hidden globals named `<prefix>.<name>`.
bool compileToObject(llvm::Module &module, const CodegenTarget &target,
                     const std::string &prefix, unsigned threads,
                     std::string &object, std::string &error,
                     CodegenSummary *summary = nullptr);

/// Links `objectPath` into the shared library `libraryPath` with lld.
bool linkSharedLibrary(const std::string &objectPath,
                       const std::string &libraryPath, std::string &error);

/// Links the objects into one relocatable object (lld -r).
bool linkRelocatable(const std::vector<std::string> &objectPaths,
                     const std::string &outputPath, std::string &error);

} // namespace odt

#endif // ODT_CODEGEN_CPU_CPUBACKEND_H
