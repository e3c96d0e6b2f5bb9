//===- Driver.cpp - ONNX training artifacts to an object, in memory -------===//

#include "codegen/Driver.h"
#include "codegen/Pipeline.h"
#include "codegen/common/Descriptor.h"
#include "codegen/common/GPUKernelTable.h"
#include "codegen/gpu/GPUBackend.h"
#include "codegen/gpu/Passes.h"
#include "compiler/training/Roles.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace odt {

CompileObserver::~CompileObserver() = default;
void CompileObserver::phase(StringRef) {}
void CompileObserver::note(StringRef) {}

/// Per entry point, as formulas of the symbolic dims: the arena that holds
/// its intermediates (offsets fixed at compile time) and the peak of live
/// intermediates it is measured against.
static void reportArenas(ModuleOp module, CompileObserver &observer) {
  auto arenas = module->getAttrOfType<DictionaryAttr>("odt.arena");
  auto peaks = module->getAttrOfType<DictionaryAttr>("odt.peak_memory");
  if (!arenas || !peaks)
    return;
  for (NamedAttribute entry : arenas) {
    std::string line = (entry.getName().getValue() + ": arena " +
                        cast<StringAttr>(entry.getValue()).getValue())
                           .str();
    if (auto peak = peaks.getAs<StringAttr>(entry.getName()))
      line += (" (peak of live intermediates " + peak.getValue() + ")").str();
    observer.note(line);
  }
}

LogicalResult compileArtifacts(MLIRContext &context, const ArtifactPaths &paths,
                               const CompileOptions &options,
                               CompileOutput &model, std::string &error,
                               llvm::raw_ostream &irOutput,
                               CompileObserver *observer) {
  CompileObserver silent;
  CompileObserver &progress = observer ? *observer : silent;
  model = CompileOutput();
  error.clear();

  progress.phase("import");
  OwningOpRef<ModuleOp> module =
      importArtifacts(&context, paths, &model.forwardParameters);
  if (!module)
    return failure();

  progress.phase("graph");
  if (failed(runGraphPipeline(*module, options.verification)))
    return failure();
  if (options.stop == CompileStop::Onnx) {
    module->print(irOutput);
    return success();
  }
  // ExportModelForInferencing's template: the eval model, typed by the
  // graph stage's @eval (which lowering replaces). The descriptor, which
  // embeds it, is built after the backend from the final module's ABI
  // record (codegen/common/AbiRecord.h).
  std::optional<ExportTemplate> exportTemplate;
  bool buildsObject =
      options.stop != CompileStop::Linalg && options.stop != CompileStop::PTX;
  if (buildsObject && !paths.eval.empty() &&
      module->lookupSymbol<func::FuncOp>("eval")) {
    std::vector<std::string> parameterNames;
    for (auto parameter : (*module)
                              ->getAttrOfType<ArrayAttr>(kParametersAttr)
                              .getAsRange<DictionaryAttr>())
      parameterNames.push_back(parameter.getAs<StringAttr>("name").str());
    FailureOr<ExportTemplate> made =
        buildExportTemplate(*module, paths.eval, parameterNames);
    if (failed(made))
      return failure();
    exportTemplate = std::move(*made);
  }

  progress.phase("linalg");
  if (failed(
          runLinalgPipeline(*module, options.optimize, options.verification)))
    return failure();
  if (options.stop == CompileStop::Linalg) {
    module->print(irOutput);
    return success();
  }

  if (options.stop == CompileStop::PTX) {
    progress.phase("gpu");
    GPUPipelineOptions gpu;
    gpu.chips = options.gpuChips;
    gpu.precision = options.gpuPrecision;
    FailureOr<std::vector<GPUKernelImage>> images =
        compileGPUKernels(*module, gpu, options.verification);
    if (failed(images))
      return failure();
    for (const GPUKernelImage &image : *images)
      irOutput << "// odt PTX for " << image.chip << ": " << image.kernels
               << " kernels\n"
               << image.ptx << "\n";
    return success();
  }

  progress.phase("llvm");
  FailureOr<CPUPipelineOptions> cpu = getCPUPipelineOptions(
      options.target,
      options.optimize && !options.gpuLoopsOnCPU && !options.gpu,
      options.prefix, error);
  if (failed(cpu))
    return module->emitError(error);
  cpu->selection = options.kernels;
  if (options.gpuLoopsOnCPU) {
    // Where a GPU build makes them: before deallocation, which frees the
    // scratch buffers the loops allocate (split sums' partial sums).
    std::string precision = options.gpuPrecision;
    cpu->buildBufferLoops = [precision](OpPassManager &pm) {
      buildGPULoopsAfterBufferization(pm, GPUPipelineOptions().blockSize,
                                      /*warpReductions=*/false, precision);
    };
    cpu->buildLoops = [](OpPassManager &pm) {
      pm.addPass(createParallelForToNestedForsPass());
    };
  }
  // A GPU build: the CPU backend's buffers, the GPU backend's loops over
  // them, the CPU backend's deallocation and arena plan, then the GPU
  // backend's kernels where the CPU's loops would be; what stays on the
  // host (launches, allocations, shape arithmetic) is compiled as the CPU
  // code would be.
  GPUPipelineOptions gpu;
  gpu.chips = options.gpuChips;
  gpu.precision = options.gpuPrecision;
  if (options.gpu) {
    if (failed(checkGPUChips(*module, gpu.chips)))
      return failure();
    cpu->buildBufferLoops = [gpu](OpPassManager &pm) {
      // As the GPU pipeline (--emit=ptx) does after bufferization.
      buildGPULoopsAfterBufferization(pm, gpu.blockSize,
                                      /*warpReductions=*/true, gpu.precision);
      pm.addPass(createConvertParallelLoopToGpuPass());
    };
    cpu->buildAfterDeallocation = [](OpPassManager &pm) {
      pm.addPass(createHostScratchOnStack());
    };
    cpu->buildLoops = [gpu](OpPassManager &pm) {
      buildGPUKernelsFromLaunches(pm, gpu);
    };
    cpu->buildFinish = [](OpPassManager &pm) {
      pm.addPass(createTakeKernelImages());
    };
  }
  if (failed(runLLVMPipeline(*module, *cpu, options.verification)))
    return failure();
  reportArenas(*module, progress);
  if (options.gpu && !options.ptxas.empty() &&
      failed(assembleKernelImages(*module, options.ptxas, error)))
    return failure();
  FailureOr<ModelDescriptor> descriptor = buildDescriptor(
      *module, options.prefix, exportTemplate ? &*exportTemplate : nullptr);
  if (failed(descriptor))
    return failure();

  if (auto images = (*module)->getAttrOfType<ArrayAttr>(kGPUImagesAttr))
    for (auto image : images.getAsRange<DictionaryAttr>()) {
      model.gpuImages.emplace_back(image.getAs<StringAttr>("chip").str(),
                                   image.getAs<StringAttr>("ptx").str());
      if (auto cubin = image.getAs<StringAttr>("cubin"))
        model.gpuCubins.emplace_back(image.getAs<StringAttr>("chip").str(),
                                     cubin.str());
    }

  progress.phase("codegen");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(*module, llvmContext, descriptor->bytes, options.prefix,
                        options.target, error);
  if (!llvmModule)
    return failure();
  if (options.stop == CompileStop::LLVM || options.stop == CompileStop::Asm) {
    // One module, optimized whole: what is printed is what one part would
    // hold if the module were not cut.
    llvm::TargetMachine *machine = getTargetMachine(options.target, error);
    if (!machine)
      return failure();
    optimizeModule(*llvmModule, *machine);
    if (options.stop == CompileStop::LLVM) {
      llvmModule->print(irOutput, nullptr);
      return success();
    }
    std::string assembly;
    if (!emitObject(*llvmModule, /*assembly=*/true, *machine, assembly, error))
      return failure();
    irOutput << assembly;
    return success();
  }
  if (!compileToObject(*llvmModule, options.target, options.prefix,
                       options.threads, model.object, error, &model.summary))
    return failure();
  const CodegenSummary &summary = model.summary;
  progress.note(std::to_string(summary.instructions) +
                " LLVM instructions in " + std::to_string(summary.parts) +
                " part" + (summary.parts == 1 ? "" : "s") + " on " +
                std::to_string(summary.threads) + " thread" +
                (summary.threads == 1 ? "" : "s"));
  model.header = std::move(descriptor->header);
  model.json = std::move(descriptor->json);
  return success();
}

} // namespace odt
