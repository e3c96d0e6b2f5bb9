//===- CPUBackend.cpp - linalg to a loadable object for a CPU -------------===//

#include "codegen/cpu/CPUBackend.h"
#include "codegen/common/Bufferize.h"
#include "codegen/common/Passes.h"
#include "codegen/common/RunPipeline.h"
#include "codegen/cpu/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "lld/Common/Driver.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <map>
#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace mlir;

namespace odt {

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CodegenTarget &target, std::string &error) {
  std::string tripleName = target.triple, cpu = target.cpu;
  llvm::SubtargetFeatures features;
  if (tripleName.empty()) {
    // This host: its CPU and every feature it reports.
    static std::once_flag nativeTarget;
    std::call_once(nativeTarget, []() {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
    });
    tripleName = llvm::sys::getProcessTriple();
    if (cpu.empty()) {
      cpu = llvm::sys::getHostCPUName().str();
      for (const auto &feature : llvm::sys::getHostCPUFeatures())
        features.AddFeature(feature.first(), feature.second);
    }
  } else {
    static std::once_flag allTargets;
    std::call_once(allTargets, []() {
      llvm::InitializeAllTargetInfos();
      llvm::InitializeAllTargets();
      llvm::InitializeAllTargetMCs();
      llvm::InitializeAllAsmPrinters();
    });
    if (cpu.empty())
      cpu = "generic";
  }
  llvm::Triple triple(llvm::Triple::normalize(tripleName));
  std::string lookupError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!llvmTarget) {
    error = "unknown target '" + tripleName + "': " + lookupError;
    return nullptr;
  }
  // The runtime reads 64-bit ELF objects and passes 64-bit memref
  // descriptors: a 32-bit model could not be loaded.
  if (!triple.isArch64Bit()) {
    error = "target '" + tripleName +
            "' is 32-bit: odt compiles for 64-bit targets (x86_64, aarch64, "
            "riscv64)";
    return nullptr;
  }
  llvm::TargetOptions options;
  if (triple.isRISCV64() && !target.triple.empty()) {
    // Linux on RISC-V is RV64GC with the double-float ABI (lp64d); LLVM's
    // generic rv64 is soft-float, which no Linux runtime loads.
    if (cpu == "generic")
      cpu = "generic-rv64";
    features.AddFeature("m");
    features.AddFeature("a");
    features.AddFeature("f");
    features.AddFeature("d");
    features.AddFeature("c");
    options.MCOptions.ABIName = "lp64d";
  }
  // LLVM only warns about a CPU or feature it does not know and goes on
  // without it: here that is an error, before any code is made for it.
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      llvmTarget->createMCSubtargetInfo(triple, "", ""));
  if (info && !info->isCPUStringValid(cpu)) {
    error = "unknown CPU '" + cpu + "' for target '" + triple.str() + "'";
    return nullptr;
  }
  if (!target.features.empty()) {
    llvm::StringSet<> known;
    if (info)
      for (const llvm::SubtargetFeatureKV &feature :
           info->getAllProcessorFeatures())
        known.insert(feature.Key);
    SmallVector<StringRef> requested;
    StringRef(target.features).split(requested, ',', -1, false);
    for (StringRef feature : requested) {
      StringRef name = feature.trim();
      if (!name.consume_front("+") && !name.consume_front("-")) {
        error =
            "target feature '" + feature.str() + "' must start with '+' or '-'";
        return nullptr;
      }
      if (!known.contains(name)) {
        error = "unknown feature '" + name.str() + "' for target '" +
                triple.str() + "'";
        return nullptr;
      }
      features.AddFeature(feature.trim());
    }
  }
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, cpu, features.getString(), options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error = "cannot create a target machine for " + triple.str();
    return nullptr;
  }
  return machine;
}

/// Code generation settings odt chooses over LLVM's defaults, unless the
/// command line sets them.
static void chooseCodegenSettings() {
  // The list scheduler after register allocation, which the machine models
  // of some CPUs (AMD Zen) turn on: on the kernels' large vector blocks it
  // took a quarter of resnet18_cifar's code generation (29 of 117 s) and
  // did not change the step time (odt-run bench, 3 rounds, within noise).
  // Out-of-order cores reorder on their own.
  auto &options = llvm::cl::getRegisteredOptions();
  if (auto found = options.find("post-RA-scheduler");
      found != options.end() && !found->second->getNumOccurrences())
    found->second->addOccurrence(1, "post-RA-scheduler", "false");
  // Instruction selection orders each block's nodes by register pressure
  // (bottom-up), not in source order: the source-order list scheduler
  // rescans a window of up to 1000 ready nodes for every node it places,
  // and an entry point's straight-line code (hundreds of task calls and
  // their contexts' stores) keeps that window full: 0.3 s for
  // resnet18_cifar's train step alone (3.6 s in llc with its defaults).
  // The machine scheduler after it orders the instructions either way; the
  // step times were the same (docs/decisions.md, 2026-12-05).
  if (auto found = options.find("pre-RA-sched");
      found != options.end() && !found->second->getNumOccurrences())
    found->second->addOccurrence(1, "pre-RA-sched", "list-burr");
}

llvm::TargetMachine *getTargetMachine(const CodegenTarget &target,
                                      std::string &error) {
  // Called on the driver's thread only: settings are global.
  chooseCodegenSettings();
  // One machine per distinct target: the pipeline, the optimizer and the
  // object emitter of one compilation all ask.
  static std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  std::string key = target.triple + "|" + target.cpu + "|" + target.features;
  if (auto found = machines.find(key); found != machines.end())
    return found->second.get();
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, error);
  if (!machine)
    return nullptr;
  return (machines[key] = std::move(machine)).get();
}

/// f32 lanes of one vector register of the target, and how many rows of a
/// product's output tile fit in its registers next to the columns (2
/// vectors per row, plus one row of B and a broadcast).
static std::pair<unsigned, unsigned>
targetVectorTile(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  auto has = [&](StringRef name) {
    return info->checkFeatures(("+" + name).str());
  };
  const llvm::Triple &triple = machine.getTargetTriple();
  if (triple.isX86()) {
    if (has("avx512f"))
      return {16, 8}; // 32 registers: 16 accumulators
    if (has("avx"))
      return {8, 6}; // 16 registers: 12 accumulators
    return {4, 6};   // SSE: 16 registers of 4 lanes
  }
  if (triple.isAArch64())
    return {4, 8}; // NEON: 32 registers of 4 lanes, 16 accumulators
  return {4, 6};
}

/// Whether the target converts between f32 and bf16 in hardware; without
/// it the conversions are expanded into integer ops (odt-expand-bf16).
static bool hasNativeBFloat16(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  const llvm::Triple &triple = machine.getTargetTriple();
  if (triple.isX86())
    return info->checkFeatures("+avx512bf16");
  if (triple.isAArch64())
    return info->checkFeatures("+bf16");
  return false;
}

/// Stages 0-5: everything that works on one entry point at a time.
static void buildCPUEntryPipeline(OpPassManager &pm,
                                  const CPUPipelineOptions &options) {
  // 0. The target, on the module, for the passes that size kernels.
  //    Signedness is in the ops now; the types become signless.
  SetCPUTargetOptions target;
  target.triple = options.target.triple;
  target.cpu = options.target.cpu;
  target.features = options.target.features;
  target.vectorWidth = options.target.vectorWidth;
  target.rows = options.target.tileRows;
  target.nativeBFloat16 = options.target.nativeBFloat16;
  pm.addPass(createSetCPUTarget(target));
  pm.addPass(createEraseUnsignedTypes());
  // 1. Convolutions the CPU computes with kernels of its own (im2col
  //    products, col2im products, per-image partial sums; a padded input
  //    that scattered_columns reads around is left dead for the
  //    canonicalizer below), then matrix products as
  //    register-tiled vector loops, on tensors (the accumulators are
  //    loop-carried values, not memory). Each is decided first, as an
  //    attribute (ConvolutionSelection.h, ContractionSelection.h), then
  //    built.
  if (options.optimize) {
    SelectConvolutionKernelsOptions convolutions;
    convolutions.forceKernel = options.selection.convolutionKernel;
    convolutions.remarks = options.selection.convolutionRemarks;
    pm.addNestedPass<func::FuncOp>(
        createSelectConvolutionKernels(convolutions));
    pm.addNestedPass<func::FuncOp>(createLowerConvolutions());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    SelectContractionKernelsOptions selection;
    selection.forceKernel = options.selection.contractionKernel;
    selection.remarks = options.selection.contractionRemarks;
    pm.addNestedPass<func::FuncOp>(createSelectContractionKernels(selection));
    pm.addNestedPass<func::FuncOp>(createVectorizeContractions());
    pm.addNestedPass<func::FuncOp>(createHoistInvariantSubexpressions());
    pm.addNestedPass<func::FuncOp>(createPadIntoProducer());
  }
  // 2-4. Caller buffers, results computed in place, then buffers
  //      (codegen/common/Bufferize.h); intermediates are allocations, freed
  //      by the deallocation pipeline.
  buildBufferizationPasses(pm);
  if (options.buildBufferLoops)
    options.buildBufferLoops(pm);
  // Upstream's buffer deallocation pipeline without the passes that change
  // nothing here, each a walk of the whole module (resnet18_cifar: 0.17 s):
  // memref-expand-realloc (bufferization makes no memref.realloc; ownership
  // deallocation would reject one), the canonicalization between ownership
  // deallocation and its simplification, and a second canonicalize + CSE
  // after the pipeline's own. The LLVM IR of every bench and zoo model is
  // byte-identical without them.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  if (options.buildAfterDeallocation)
    options.buildAfterDeallocation(pm);
  // After a reset, gradients are written where they accumulate.
  if (options.optimize)
    pm.addNestedPass<func::FuncOp>(createFuseGradientAccumulation());
  // Intermediates are freed after their last use, so later ones reuse their
  // blocks ...
  pm.addNestedPass<func::FuncOp>(createFreeAfterLastUse());
  pm.addPass(createReportPeakMemory());
  // ... and then live in one arena, at offsets fixed here.
  pm.addPass(createPlanArena());
  // 5. Loops, then the LLVM dialect. expand-strided-metadata emits
  //    affine.apply for dynamic offsets (slices at run-time positions), so
  //    it runs before lower-affine.
  pm.addPass(createExpandStridedCopies());
  if (options.buildLoops) {
    options.buildLoops(pm);
  } else {
    pm.addPass(createInterchangeReductions());
    if (options.optimize) {
      // Elementwise ops over as few loops as their buffers allow, then
      // the large ones (the optimizer update) over threads.
      pm.addNestedPass<func::FuncOp>(createCollapseElementwise());
      pm.addNestedPass<func::FuncOp>(createParallelizeElementwise());
      // Window reductions and elementwise ops over short rows: the row as
      // a vector value.
      pm.addNestedPass<func::FuncOp>(createVectorizeRows());
    }
  }
  //    Passes that change one function at a time run nested on functions,
  //    so the pass manager spreads them over the driver's threads (the
  //    outlined parallel bodies are most of a model's code); those that
  //    declare or convert symbols run on the module.
  {
    OpPassManager &perFunction = pm.nest<func::FuncOp>();
    perFunction.addPass(createConvertLinalgToLoopsPass());
    perFunction.addPass(memref::createExpandStridedMetadataPass());
    perFunction.addPass(createLowerAffinePass());
    perFunction.addPass(createForallToParallelLoopPass());
  }
  pm.addPass(createOutlineParallelLoops());
  if (options.optimize)
    pm.addPass(createOutlineSerialLoops());
  {
    OpPassManager &perFunction = pm.nest<func::FuncOp>();
    perFunction.addPass(createHoistLoopBuffers());
    if (options.optimize)
      perFunction.addPass(createApproximateMath());
    if (!options.target.nativeBFloat16)
      perFunction.addPass(createExpandBFloat16());
    perFunction.addPass(createSCFToControlFlowPass());
    perFunction.addPass(createConvertVectorToLLVMPass());
  }
  pm.addPass(createConvertToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Stage 6, on the whole module: the entry points share the hooks it
/// defines.
static void buildCPUPackPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options) {
  // 6. One packed C entry per entry point; everything else internal.
  PackEntryPointsOptions pack;
  pack.prefix = options.prefix;
  pm.addPass(createPackEntryPoints(pack));
  if (options.buildFinish)
    options.buildFinish(pm);
}

void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options) {
  // A GPU build's passes collect its kernels over the whole module.
  if (options.buildLoops || options.buildBufferLoops ||
      options.buildAfterDeallocation || options.buildFinish) {
    buildCPUEntryPipeline(pm, options);
    buildCPUPackPipeline(pm, options);
    return;
  }
  // Stages 0-5 on one module per entry point, in parallel: bufferization,
  // deallocation and the conversion to LLVM walk a whole module on one
  // thread. resnet18_cifar: 1.31 -> 1.13 s on 2 threads.
  pm.addPass(createSplitEntryModules());
  OpPassManager &perEntry = pm.nest<ModuleOp>();
  // Each entry's module got a copy of every private function and global.
  perEntry.addPass(createSymbolDCEPass());
  buildCPUEntryPipeline(perEntry, options);
  pm.addPass(createMergeEntryModules());
  buildCPUPackPipeline(pm, options);
}

FailureOr<CPUPipelineOptions> getCPUPipelineOptions(const CodegenTarget &target,
                                                    bool optimize,
                                                    const std::string &prefix,
                                                    std::string &error) {
  llvm::TargetMachine *machine = getTargetMachine(target, error);
  if (!machine)
    return failure();
  CPUPipelineOptions options;
  options.optimize = optimize;
  auto [vectorWidth, rows] = targetVectorTile(*machine);
  options.target = {machine->getTargetTriple().str(),
                    machine->getTargetCPU().str(),
                    machine->getTargetFeatureString().str(),
                    vectorWidth,
                    rows,
                    hasNativeBFloat16(*machine)};
  options.prefix = prefix;
  return options;
}

LogicalResult runLLVMPipeline(ModuleOp module,
                              const CPUPipelineOptions &options,
                              Verification verification) {
  return runPassPipeline(
      module, [&](OpPassManager &pm) { buildCPUPipeline(pm, options); },
      verification);
}

namespace {
/// odt-cpu-pipeline's options: CPUPipelineOptions on the command line.
struct CPUPipelineCLOptions : public PassPipelineOptions<CPUPipelineCLOptions> {
  Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Product kernels, parallel loops, row vectors and the "
                     "polynomial math (false: the reference build)"),
      llvm::cl::init(true)};
  Option<unsigned> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of a vector register (AVX2: 8)"),
      llvm::cl::init(CPUPipelineOptions().target.vectorWidth)};
  Option<unsigned> rows{
      *this, "rows",
      llvm::cl::desc("Rows of a product kernel's register tile (AVX2: 6)"),
      llvm::cl::init(CPUPipelineOptions().target.tileRows)};
  Option<bool> nativeBFloat16{
      *this, "native-bf16",
      llvm::cl::desc("The target converts f32 <-> bf16 in hardware"),
      llvm::cl::init(false)};
  Option<std::string> triple{*this, "triple",
                             llvm::cl::desc("Target triple, for odt.target")};
  Option<std::string> cpu{*this, "cpu",
                          llvm::cl::desc("Target CPU, for odt.target")};
  Option<std::string> features{
      *this, "features", llvm::cl::desc("Target features, for odt.target")};
  Option<std::string> prefix{
      *this, "prefix",
      llvm::cl::desc("Prefix of the packed entry points' symbols"),
      llvm::cl::init(CPUPipelineOptions().prefix)};
};
} // namespace

void registerCPUPipeline() {
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "odt-cpu-pipeline",
      "odt-compile's CPU backend: linalg on tensors to the LLVM dialect with "
      "packed entry points",
      [](OpPassManager &pm, const CPUPipelineCLOptions &cl) {
        CPUPipelineOptions options;
        options.optimize = cl.optimize;
        options.target = {cl.triple,      cl.cpu,  cl.features,
                          cl.vectorWidth, cl.rows, cl.nativeBFloat16};
        options.prefix = cl.prefix;
        buildCPUPipeline(pm, options);
      });
}

std::unique_ptr<llvm::Module>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                  const std::vector<uint8_t> &descriptor,
                  const std::string &prefix, const CodegenTarget &target,
                  std::string &error) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "odt_model");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  llvm::TargetMachine *machine = getTargetMachine(target, error);
  if (!machine)
    return nullptr;
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  // X86 splits 512-bit vectors in two unless a function asks for them; the
  // product kernels are written for the full register width.
  if (machine->getTargetTriple().isX86() &&
      machine->getMCSubtargetInfo()->checkFeatures("+avx512f"))
    for (llvm::Function &function : *llvmModule)
      if (!function.isDeclaration())
        function.addFnAttr("min-legal-vector-width", "512");

  // The descriptor travels inside the code: one file is the whole model.
  auto *bytes = llvm::ConstantDataArray::get(
      context, llvm::ArrayRef<uint8_t>(descriptor.data(), descriptor.size()));
  auto *global = new llvm::GlobalVariable(
      *llvmModule, bytes->getType(), /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage, bytes, prefix + "_descriptor");
  global->setAlignment(llvm::Align(16));
  new llvm::GlobalVariable(
      *llvmModule, llvm::Type::getInt64Ty(context), true,
      llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(llvm::Type::getInt64Ty(context),
                             descriptor.size()),
      prefix + "_descriptor_size");
  return llvmModule;
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LLVMContext &context = module.getContext();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // --time-passes and --print-after-all reach the optimizer too.
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(context,
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &mam);
  // CalledValuePropagation only annotates indirect calls with the functions
  // they may reach (!callees), which nothing in odt's code uses (its
  // indirect calls are the thread pool's, through the runtime); it took 6%
  // of resnet18_cifar's code generation, and the object is the same
  // without it.
  callbacks.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef pass, llvm::Any) {
        return pass != "CalledValuePropagationPass";
      });
  // No loop unrolling by LLVM: odt's kernels are unrolled where it decided
  // to (register tiles, vector rows) before LLVM sees them, and LLVM's full
  // unrolling of the remaining constant-trip loops (channels, taps, tile
  // edges) made most of the code and of its compile time without making
  // the step faster: resnet18_cifar 102,656 -> 47,303 lines of optimized
  // LLVM IR, code generation 3.4 -> 2.0 s, training step 5% faster;
  // mobilenetv2 2.5% faster, transformer 1% slower, mlp and lenet5 equal
  // (docs/decisions.md, 2026-12-03).
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      // O2, not O3: O3 adds non-trivial loop unswitching, argument
      // promotion and larger unrolling, which on odt's code (kernels
      // vectorized and register-tiled before LLVM) made the same step time
      // (resnet18_cifar, mobilenetv2, transformer: odt-run bench, 3
      // rounds, within noise) for 1.8x (resnet18) to 3.2x (mobilenetv2)
      // the optimizer's time.
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(module, mam);
}

bool emitObject(llvm::Module &module, bool assembly,
                llvm::TargetMachine &machine, std::string &bytes,
                std::string &error) {
  bytes.clear();
  llvm::raw_string_ostream stream(bytes);
  llvm::buffer_ostream buffered(stream);
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, buffered, nullptr,
                                  assembly
                                      ? llvm::CodeGenFileType::AssemblyFile
                                      : llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit this file type";
    return false;
  }
  pm.run(module);
  return true;
}

/// Runs lld (ELF) in this process with `args` (argv[0] first).
static bool runLinker(const std::vector<const char *> &args,
                      const std::string &what, std::string &error) {
  std::string out, err;
  llvm::raw_string_ostream outStream(out), errStream(err);
  lld::Result result =
      lld::lldMain(args, outStream, errStream, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0) {
    error = what + " failed: " + err;
    return false;
  }
  return true;
}

bool linkSharedLibrary(const std::string &objectPath,
                       const std::string &libraryPath, std::string &error) {
  return runLinker({"ld.lld", "-shared", "--hash-style=gnu", "-z",
                    "noexecstack", "-o", libraryPath.c_str(),
                    objectPath.c_str()},
                   "linking '" + libraryPath + "'", error);
}

bool linkRelocatable(const std::vector<std::string> &objectPaths,
                     const std::string &outputPath, std::string &error) {
  std::vector<const char *> args = {"ld.lld", "-r", "-o", outputPath.c_str()};
  for (const std::string &path : objectPaths)
    args.push_back(path.c_str());
  return runLinker(args, "joining the code parts", error);
}

} // namespace odt
