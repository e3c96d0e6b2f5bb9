//===- GPUBackend.cpp - linalg to PTX kernels for NVIDIA GPUs -------------===//

#include "codegen/gpu/GPUBackend.h"
#include "codegen/common/Bufferize.h"
#include "codegen/common/Passes.h"
#include "codegen/common/RunPipeline.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace odt {

const std::vector<std::string> &getSupportedGPUChips() {
  static const std::vector<std::string> chips = {"sm_80", "sm_86", "sm_87",
                                                 "sm_89", "sm_90"};
  return chips;
}

const std::vector<std::string> &getSupportedGPUPrecisions() {
  static const std::vector<std::string> precisions = {"fp32", "tf32", "tf32x3",
                                                      "bf16"};
  return precisions;
}

void buildGPULoops(OpPassManager &pm, int64_t blockSize, bool warpReductions,
                   StringRef precision) {
  pm.addNestedPass<func::FuncOp>(createCopiesAsLoops());
  pm.addNestedPass<func::FuncOp>(createParallelDimsOutermost());
  if (precision != "fp32") {
    // Products on the tensor cores, emulated lane by lane where the loops
    // run on the CPU (no warps there).
    TensorCoreProductsOptions tensorCores;
    tensorCores.precision = precision.str();
    tensorCores.emulate = !warpReductions;
    pm.addNestedPass<func::FuncOp>(createTensorCoreProducts(tensorCores));
  }
  pm.addNestedPass<func::FuncOp>(createAccumulateInRegisters());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Adjacent loops over the same elements become one kernel where each
  // element's reads of the first loop's writes are at its own index (a
  // fill and the reduction into it, a chain of elementwise ops the middle
  // left apart). Canonicalization first makes equal bounds the same values
  // (a buffer's dims are its allocation's sizes).
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createDeviceScalarWork());
  pm.addNestedPass<func::FuncOp>(createFuseParallelLoops());
  // A host loop launching a kernel per iteration (an embedding gradient's
  // loop over tokens) becomes a loop inside that kernel.
  pm.addNestedPass<func::FuncOp>(createSinkHostLoops());
  // A row's elementwise work (a softmax's division, a LayerNorm's
  // normalization) in the kernel that reduced the row.
  pm.addNestedPass<func::FuncOp>(createFuseRowConsumers());
  if (warpReductions)
    pm.addNestedPass<func::FuncOp>(createWarpReductions());
  DistributeParallelLoopsOptions distribute;
  distribute.blockSize = blockSize;
  pm.addNestedPass<func::FuncOp>(createDistributeParallelLoops(distribute));
  MergeIndependentLoopsOptions merge;
  merge.blockSize = blockSize;
  pm.addNestedPass<func::FuncOp>(createMergeIndependentLoops(merge));
}

void buildGPULoopsAfterBufferization(OpPassManager &pm, int64_t blockSize,
                                     bool warpReductions, StringRef precision) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  buildGPULoops(pm, blockSize, warpReductions, precision);
}

void buildGPUKernels(OpPassManager &pm, const GPUPipelineOptions &options) {
  // Each distributed loop a gpu.launch outlined as a kernel. Index
  // arithmetic and constant globals move into the kernels first, so that
  // constants are not kernel arguments and kernels read the device's copy
  // of a global.
  pm.addPass(createConvertParallelLoopToGpuPass());
  buildGPUKernelsFromLaunches(pm, options);
}

void buildGPUKernelsFromLaunches(OpPassManager &pm,
                                 const GPUPipelineOptions &options) {
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addNestedPass<func::FuncOp>(createConstantsInKernels());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createMergeKernelModules());
  pm.addPass(createCheckHostCode());
  // The kernels to NVVM, math as polynomials and NVPTX instructions
  // (convert-gpu-to-nvvm would call libdevice's __nv_* functions, linked
  // only where a CUDA toolkit is found), then PTX for each chip, in
  // process.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views made inside a kernel (a row picked by a token id, in a loop
  // odt-gpu-sink-host-loops moved in) as pointer arithmetic.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createLowerKernelMath());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCheckKernelCalls());
  // The kernels' names and parameter counts, for the host's launches and
  // the descriptor.
  pm.addPass(createRecordKernels());
  for (const std::string &chip : options.chips) {
    // PTX ISA 8.1 (CUDA 12.1 drivers; the runtime refuses older ones) for
    // every chip, above the lowest each accepts (7.0 to 7.8): it allows 32
    // KB of kernel parameters instead of 4, so one launch updates every
    // parameter of a model (odt-gpu-merge-independent-loops' budget).
    GpuNVVMAttachTargetOptions target;
    target.chip = chip;
    target.features = "+ptx81";
    target.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options) {
  // 1. Buffers, as on the CPU: entry points read and write caller buffers,
  //    final results are computed in place, intermediates are allocations.
  buildBufferizationPasses(pm);
  // 2. Each linalg op a parallel loop over its parallel dims (reductions
  //    are sequential loops inside), spread over blocks of threads.
  buildGPULoopsAfterBufferization(pm, options.blockSize,
                                  /*warpReductions=*/true, options.precision);
  // 3. Kernels, in PTX for each chip.
  buildGPUKernels(pm, options);
}

namespace {
struct GPUPipelineCLOptions : public PassPipelineOptions<GPUPipelineCLOptions> {
  ListOption<std::string> chips{*this, "chips",
                                llvm::cl::desc("Chips to compile the kernels "
                                               "for (sm_80, sm_86, sm_87, "
                                               "sm_89, sm_90)")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<bool> warpReductions{
      *this, "warp-reductions",
      llvm::cl::desc("Sum rows over the lanes of warps, as a GPU build does "
                     "(odt-gpu-loops only; off: the loops --gpu-loops-on-cpu "
                     "runs)"),
      llvm::cl::init(false)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("The products' arithmetic: fp32, tf32, tf32x3 or bf16 "
                     "(tensor cores)"),
      llvm::cl::init("fp32")};
};
} // namespace

void registerGPUPipeline() {
  PassPipelineRegistration<GPUPipelineCLOptions>(
      "odt-gpu-loops",
      "The GPU backend's loops on memrefs: each linalg op a parallel loop, "
      "loops over the same elements fused, spread over blocks and threads "
      "(chips is ignored)",
      [](OpPassManager &pm, const GPUPipelineCLOptions &cl) {
        buildGPULoops(pm, cl.blockSize, cl.warpReductions, cl.precision);
      });
  PassPipelineRegistration<GPUPipelineCLOptions>(
      "odt-gpu-pipeline",
      "odt-compile's GPU backend: linalg on tensors to PTX kernels "
      "(gpu.binary ops)",
      [](OpPassManager &pm, const GPUPipelineCLOptions &cl) {
        GPUPipelineOptions options;
        if (!cl.chips.empty())
          options.chips.assign(cl.chips.begin(), cl.chips.end());
        options.blockSize = cl.blockSize;
        options.precision = cl.precision;
        buildGPUPipeline(pm, options);
      });
}

LogicalResult checkGPUChips(ModuleOp module,
                            const std::vector<std::string> &chips) {
  for (const std::string &chip : chips)
    if (!llvm::is_contained(getSupportedGPUChips(), chip))
      return module.emitError()
             << "unknown GPU chip '" << chip << "' ("
             << llvm::join(getSupportedGPUChips(), ", ") << ")";
  if (chips.empty())
    return module.emitError() << "no GPU chip to compile the kernels for";
  return success();
}

FailureOr<std::vector<GPUKernelImage>>
compileGPUKernels(ModuleOp module, const GPUPipelineOptions &options,
                  Verification verification) {
  if (failed(checkGPUChips(module, options.chips)))
    return failure();
  if (failed(runPassPipeline(
          module, [&](OpPassManager &pm) { buildGPUPipeline(pm, options); },
          verification)))
    return failure();
  // One gpu.binary (odt-gpu-merge-kernel-modules), one object per chip.
  std::vector<GPUKernelImage> images;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      StringRef ptx = object.getObject().getValue();
      images.push_back({target ? target.getChip().str() : std::string(),
                        ptx.str(), ptx.count("\n.visible .entry ")});
    }
  }
  auto rank = [&](const GPUKernelImage &image) {
    return llvm::find(options.chips, image.chip) - options.chips.begin();
  };
  llvm::sort(images, [&](const GPUKernelImage &a, const GPUKernelImage &b) {
    return rank(a) < rank(b);
  });
  return images;
}

} // namespace odt
