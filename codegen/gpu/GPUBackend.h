//===- GPUBackend.h - linalg to PTX kernels for NVIDIA GPUs -----*- C++ -*-===//
//
// The GPU backend, a sibling of codegen/cpu starting from the same middle
// (linalg on tensors, docs/middle-contract.md):
//   buffers     destination passing and one-shot bufferization, as the CPU
//   kernels     every linalg op a parallel loop nest, its parallel dims
//               collapsed and spread over blocks of threads (a grid sized
//               at run time for symbolic dims), each loop outlined as a
//               gpu.func
//   PTX         the kernels lowered to NVVM (transcendentals through odt's
//               own approximations: no libdevice) and compiled to PTX in
//               process for each requested chip
// A GPU build (CompileOptions::gpu) runs the CPU backend's buffer and arena
// passes, then these loops and kernels, and compiles the host code that
// launches them through the runtime's launcher (codegen/cpu/
// KernelLaunches.h); the PTX travels in the model descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_GPU_GPUBACKEND_H
#define ODT_CODEGEN_GPU_GPUBACKEND_H

#include "codegen/common/RunPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace odt {

struct GPUPipelineOptions {
  /// The chips to compile for (sm_80, sm_86, sm_87, sm_89, sm_90); each
  /// kernel gets PTX for each.
  std::vector<std::string> chips = {"sm_80"};
  /// Threads per block of the element loops.
  int64_t blockSize = 256;
  /// The products' arithmetic: fp32 (FFMA), or tensor cores' tf32, tf32x3
  /// or bf16 (odt-gpu-tensor-core-products).
  std::string precision = "fp32";
};

/// The precisions --gpu-precision takes, fp32 first (the default).
const std::vector<std::string> &getSupportedGPUPrecisions();

/// The GPU's loop structure on memrefs: each linalg op a parallel loop
/// over its parallel dims (parallel dims first, reductions inside), adjacent
/// loops over the same elements fused, each collapsed and tiled into blocks
/// of `blockSize` threads mapped to the grid
/// (odt-gpu-distribute-parallel-loops). Registered as odt-gpu-loops. The
/// GPU pipeline outlines these loops as kernels; the same loops run
/// sequentially on a CPU check the distribution's numerics without a GPU
/// (CompileOptions::gpuLoopsOnCPU). `warpReductions` (a GPU build's) sums
/// rows over the lanes of warps (odt-gpu-warp-reductions), which needs the
/// lanes to run together: not on the CPU. `precision` other than fp32
/// computes products with mma.sync (odt-gpu-tensor-core-products), which
/// a CPU run (no warpReductions) emulates lane by lane.
void buildGPULoops(mlir::OpPassManager &pm, int64_t blockSize,
                   bool warpReductions, llvm::StringRef precision = "fp32");

/// buildGPULoops right after bufferization, with the canonicalization and
/// CSE it needs first (equal bounds as the same values): the GPU pipeline's,
/// a GPU build's and a --gpu-loops-on-cpu build's loops.
void buildGPULoopsAfterBufferization(mlir::OpPassManager &pm, int64_t blockSize,
                                     bool warpReductions,
                                     llvm::StringRef precision = "fp32");

/// The chips odt compiles for, in order: Ampere (sm_80 A100, sm_86, sm_87
/// Jetson Orin), Ada (sm_89) and Hopper (sm_90).
const std::vector<std::string> &getSupportedGPUChips();

/// After buildGPULoops: each distributed loop a kernel (outlined into one
/// gpu.module, constant globals with it), lowered to NVVM, recorded in
/// odt.gpu_kernels (codegen/common/GPUKernelTable.h) and compiled to PTX
/// for each chip (one gpu.binary); launches stay in the host code.
void buildGPUKernels(mlir::OpPassManager &pm,
                     const GPUPipelineOptions &options);
/// buildGPUKernels from gpu.launch ops on (the GPU build converts the
/// distributed loops to launches before buffers are freed and planned:
/// canonicalization would merge a loop over blocks with its loop over
/// threads and drop their mapping).
void buildGPUKernelsFromLaunches(mlir::OpPassManager &pm,
                                 const GPUPipelineOptions &options);

/// An error on the module naming the first chip odt does not compile for.
mlir::LogicalResult checkGPUChips(mlir::ModuleOp module,
                                  const std::vector<std::string> &chips);

/// The GPU stage as a pass pipeline: linalg on tensors to gpu.binary ops
/// holding each kernel's PTX. Registered as odt-gpu-pipeline{chips=...}.
void buildGPUPipeline(mlir::OpPassManager &pm,
                      const GPUPipelineOptions &options);
void registerGPUPipeline();

/// The PTX module of every kernel of the model for one chip.
struct GPUKernelImage {
  std::string chip;
  std::string ptx;
  /// Kernels in it (gpu.func <entry>_kernel[_N]).
  size_t kernels = 0;
};

/// Runs the GPU stage on the module and returns its PTX for each chip, in
/// the order asked; failure with errors at the ops.
mlir::FailureOr<std::vector<GPUKernelImage>>
compileGPUKernels(mlir::ModuleOp module, const GPUPipelineOptions &options,
                  Verification verification = Verification::AtEnd);

/// Assembles the PTX of each image of a GPU build (the module's
/// odt.gpu_images) for its chip with `ptxas`, adding the cubin to the image
/// as "cubin". An error (ptxas's message, the chip) when one does not
/// assemble.
mlir::LogicalResult assembleKernelImages(mlir::ModuleOp module,
                                         llvm::StringRef ptxas,
                                         std::string &error);

} // namespace odt

#endif // ODT_CODEGEN_GPU_GPUBACKEND_H
