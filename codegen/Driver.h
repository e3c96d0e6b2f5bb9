//===- Driver.h - ONNX training artifacts to an object, in memory -*- C++ -*-=//
//
// The whole compilation as one call: import -> graph -> linalg (the shared
// middle) -> the backend -> a relocatable object and the model descriptor.
// odt-compile is a front end around it (options, the compile cache, the
// output folder, linking the shared library); a program that compiles models
// itself calls it the same way.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_DRIVER_H
#define ODT_CODEGEN_DRIVER_H

#include "codegen/cpu/CPUBackend.h"
#include "compiler/import/ArtifactImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace odt {

/// Where compileArtifacts stops: after the object (the default), or after a
/// stage, printing that stage's IR.
enum class CompileStop {
  Object, ///< a relocatable object and the descriptor
  Onnx,   ///< the graph stage's onnx dialect
  Linalg, ///< the shared middle: linalg on tensors
  LLVM,   ///< LLVM IR, optimized as one module
  Asm,    ///< the target's assembly
  PTX,    ///< the GPU backend's kernels, PTX for each of `gpuChips`
};

struct CompileOptions {
  /// Packed entry points and descriptor globals are named `<prefix>_...`.
  std::string prefix = "odt_model";
  /// false: the reference build (no fusion, no product kernels, libm's exp).
  bool optimize = true;
  /// The machine the code is for (all empty: this one).
  CodegenTarget target;
  /// Threads for LLVM's optimizer and code generator (0: one per hardware
  /// thread); the object does not depend on it.
  unsigned threads = 0;
  CompileStop stop = CompileStop::Object;
  /// Kernel overrides and remarks (CPUPipelineOptions::selection).
  KernelSelection kernels;
  /// CompileStop::PTX: the GPU chips (GPUPipelineOptions::chips).
  std::vector<std::string> gpuChips = {"sm_80"};
  /// A GPU build: the model's kernels as PTX for `gpuChips` (in the
  /// descriptor) and host code that launches them through the runtime's
  /// launcher, in place of the CPU's code.
  bool gpu = false;
  /// A GPU build: the CUDA toolkit's ptxas, which assembles each chip's PTX
  /// into a cubin the descriptor carries too (empty: PTX only).
  std::string ptxas;
  /// A CPU object whose loops are the GPU backend's (blocks and threads,
  /// run one after another; buildGPULoops) instead of the CPU's, without
  /// the CPU's kernels: trained, it checks the GPU distribution's numerics
  /// on a machine without a GPU.
  bool gpuLoopsOnCPU = false;
  /// A GPU build's or a gpuLoopsOnCPU build's products: fp32 (FFMA), or
  /// the tensor cores' tf32, tf32x3 or bf16 (GPUPipelineOptions::precision;
  /// emulated lane by lane where the loops run on the CPU).
  std::string gpuPrecision = "fp32";
  /// When the pipelines verify the IR (RunPipeline.h): once at each
  /// pipeline's end, or after every pass.
  Verification verification = Verification::AtEnd;
};

/// What compileArtifacts made. (Not named CompiledModel: the runtime has an
/// odt::CompiledModel, and tools link both.)
struct CompileOutput {
  std::string object;       ///< relocatable object (CompileStop::Object)
  std::string header, json; ///< the descriptor's model.h and model.json
  /// A GPU build's kernels: (chip, PTX) for each chip, as in the descriptor.
  std::vector<std::pair<std::string, std::string>> gpuImages;
  /// (chip, cubin) for each chip, when ptxas assembled them.
  std::vector<std::pair<std::string, std::string>> gpuCubins;
  /// A plain forward model's initializers: its parameters' initial values.
  std::vector<ParameterValue> forwardParameters;
  CodegenSummary summary;
};

/// Progress of a compilation: each phase as it starts (import, graph,
/// linalg, llvm, codegen) and facts worth a line (arena sizes, how the code
/// was cut). The default does nothing.
class CompileObserver {
public:
  virtual ~CompileObserver();
  virtual void phase(llvm::StringRef name);
  virtual void note(llvm::StringRef line);
};

/// Compiles the artifacts `paths` in `context` (odt's dialects registered:
/// registerCompilerDialects). With a `stop` at a stage, that stage's IR is
/// printed to `irOutput` and `model` holds nothing. Failures: the stages
/// report through the context's diagnostics; the LLVM side's errors are in
/// `error` (empty when a diagnostic said it).
mlir::LogicalResult compileArtifacts(mlir::MLIRContext &context,
                                     const ArtifactPaths &paths,
                                     const CompileOptions &options,
                                     CompileOutput &model, std::string &error,
                                     llvm::raw_ostream &irOutput = llvm::outs(),
                                     CompileObserver *observer = nullptr);

} // namespace odt

#endif // ODT_CODEGEN_DRIVER_H
