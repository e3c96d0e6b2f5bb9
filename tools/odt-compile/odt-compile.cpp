//===- odt-compile.cpp - ONNX training artifacts to native code -----------===//
//
//   odt-compile ARTIFACT_DIR -o OUT_DIR
//   odt-compile --train F [--eval F] [--optimizer F] [--checkpoint F] -o
//   OUT_DIR odt-compile generate-artifacts MODEL.onnx -o ARTIFACT_DIR [--loss
//   ...]
//
// Writes OUT_DIR/model.o (link into an application), OUT_DIR/model.h, the
// loadable OUT_DIR/libmodel.so and OUT_DIR/model.json (the descriptor, for
// people). --emit=STAGE prints one stage instead and stops.
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"
#include "codegen/Driver.h"
#include "codegen/Pipeline.h"
#include "codegen/common/Descriptor.h"
#include "codegen/cpu/ConvolutionSelection.h"
#include "codegen/gpu/GPUBackend.h"
#include "compiler/autodiff/GradientBuilder.h"
#include "compiler/export/ModelExporter.h"
#include "compiler/import/ArtifactImporter.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/training/GenerateArtifacts.h"
#include "compiler/training/Roles.h"

#include "Checkpoint.h"
#include "Npy.h"
#include "odt/odt.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <functional>
#include <sys/resource.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("odt-compile options");
static cl::opt<std::string>
    artifactDir(cl::Positional, cl::desc("[ARTIFACT_DIR]"), cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::desc("Output folder"),
                                      cl::value_desc("OUT_DIR"),
                                      cl::cat(category));
static cl::opt<std::string>
    trainPath("train", cl::desc("Training model (.onnx)"), cl::cat(category));
static cl::opt<std::string> evalPath("eval", cl::desc("Eval model (.onnx)"),
                                     cl::cat(category));
static cl::opt<std::string> optimizerPath("optimizer",
                                          cl::desc("Optimizer model (.onnx)"),
                                          cl::cat(category));
static cl::opt<std::string>
    checkpointPath("checkpoint",
                   cl::desc("Checkpoint naming the parameters (optional)"),
                   cl::cat(category));
static cl::opt<std::string>
    emit("emit",
         cl::desc("Print one stage and stop: onnx, linalg, llvm (LLVM IR), "
                  "asm, obj (write OUT_DIR/model.o only), or ptx (the GPU "
                  "kernels, for --gpu-arch)"),
         cl::cat(category));
static cl::list<std::string>
    gpuArch("gpu-arch",
            cl::desc("A GPU build: the model's kernels as PTX for these "
                     "NVIDIA chips, comma-separated (sm_80, sm_86, sm_87, "
                     "sm_89, sm_90), launched by host code through the "
                     "runtime; with --emit=ptx, only the kernels (default "
                     "sm_80)"),
            cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> ptxasOption(
    "ptxas",
    cl::desc("A GPU build: the ptxas that assembles each chip's PTX into a "
             "cubin (SASS) the model carries too, so the driver does not "
             "compile PTX when a session starts: a path, or 'off' for PTX "
             "only (default: ptxas on PATH, in $CUDA_HOME/bin or "
             "/usr/local/cuda/bin, else PTX only)"),
    cl::init(""), cl::cat(category));
/// The ptxas a GPU build uses, resolved from --ptxas (empty: none).
static std::string resolvedPtxas;

/// The ptxas --ptxas names or the default finds; false with `error` set
/// when a named one is not an executable.
static bool resolvePtxas(std::string &error) {
  resolvedPtxas.clear();
  if (ptxasOption == "off")
    return true;
  if (!ptxasOption.empty()) {
    if (!llvm::sys::fs::can_execute(ptxasOption)) {
      error = "--ptxas: '" + ptxasOption + "' is not an executable";
      return false;
    }
    resolvedPtxas = ptxasOption;
    return true;
  }
  // PATH first, then the toolkit's usual homes.
  std::string cudaBin;
  std::vector<llvm::StringRef> homes;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    homes.push_back(cudaBin = std::string(home) + "/bin");
  homes.push_back("/usr/local/cuda/bin");
  for (const std::vector<llvm::StringRef> &paths :
       {std::vector<llvm::StringRef>{}, homes})
    if (auto found = llvm::sys::findProgramByName("ptxas", paths)) {
      resolvedPtxas = *found;
      break;
    }
  return true;
}

static cl::opt<bool> gpuLoopsOnCPU(
    "gpu-loops-on-cpu",
    cl::desc("A CPU build whose loops are the GPU backend's blocks and "
             "threads, run one after another, without the CPU's kernels: "
             "trained, it checks the GPU code's numerics without a GPU"),
    cl::cat(category));
static cl::opt<std::string> gpuPrecision(
    "gpu-precision",
    cl::desc("A GPU build's (or --gpu-loops-on-cpu build's) matrix products: "
             "fp32 (default: FFMA, ONNX Runtime's numerics), tf32 (tensor "
             "cores, inputs rounded to 10 mantissa bits), tf32x3 (three tf32 "
             "products: about fp32's accuracy) or bf16 (inputs rounded to 7 "
             "bits); sums in f32. --gpu-loops-on-cpu emulates the tensor "
             "cores' rounding lane by lane"),
    cl::init("fp32"), cl::cat(category));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every compiler pass, naming the pass that "
             "broke it (slower; by default each stage's result is verified "
             "once); nothing is taken from the cache"),
    cl::cat(category));
static cl::opt<std::string> prefix("name",
                                   cl::desc("Prefix of the exported symbols"),
                                   cl::init("odt_model"), cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("No progress lines"),
                           cl::cat(category));
static cl::opt<bool> simpleCodegen(
    "simple-codegen",
    cl::desc("No fusion, product or convolution kernels or math "
             "approximations: plain loops "
             "(a reference build to check the optimized code against)"),
    cl::cat(category));
static cl::opt<std::string> contractionKernel(
    "contraction-kernel",
    cl::desc("Compute every matrix product that this kernel can with it "
             "(packed, direct, dots, swapped), to compare kernels on one "
             "model; the others keep the selected ones"),
    cl::value_desc("KERNEL"), cl::cat(category));
static cl::opt<bool> contractionRemarks(
    "contraction-remarks",
    cl::desc("Say at each matrix product which kernels it got, and why"),
    cl::cat(category));
static cl::opt<std::string> convolutionKernel(
    "convolution-kernel",
    cl::desc(
        "Compute every convolution that this kernel can with it "
        "(image_columns, image_partials, scattered_columns; linalg: none of "
        "them, linalg's "
        "loops), to compare kernels on one model; the others keep the "
        "selected ones"),
    cl::value_desc("KERNEL"), cl::cat(category));
static cl::opt<bool> convolutionRemarks(
    "convolution-remarks",
    cl::desc("Say at each convolution which kernel it got, and why"),
    cl::cat(category));
static cl::opt<std::string> targetTriple(
    "target",
    cl::desc("Cross-compile for this target triple (aarch64-linux-gnu: NEON "
             "kernels; x86_64-linux-gnu). Default: this machine"),
    cl::value_desc("TRIPLE"), cl::cat(category));
static cl::opt<std::string> targetCpu(
    "cpu",
    cl::desc("CPU to generate code for (haswell, skylake-avx512, "
             "neoverse-n1, ...). Default: this machine's, or the target's "
             "generic CPU with --target"),
    cl::value_desc("NAME"), cl::cat(category));
static cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("Features to add or remove, comma-separated (+avx2,-avx512f)"),
    cl::value_desc("+F,-G"), cl::cat(category));
static cl::opt<unsigned> jobCount(
    "jobs",
    cl::desc("Threads for LLVM's optimization and code generation (default: "
             "one per hardware thread); the object does not depend on it"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::alias jobCountShort("j", cl::desc("Same as --jobs"),
                               cl::aliasopt(jobCount), cl::cat(category));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Where compiled models are kept by a hash of what they are made "
             "from, so compiling them again copies them (default: "
             "$ODT_CACHE_DIR, else ~/.cache/odt/compile)"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> noCache("no-cache",
                             cl::desc("Neither read nor write the cache"),
                             cl::cat(category));
static cl::list<std::string> inputValues(
    "input-value",
    cl::desc("Fix a graph input to the values of a .npy file (a compile-time "
             "specialization; the input leaves the model's signature)"),
    cl::value_desc("NAME=FILE.npy"), cl::cat(category));

// generate-artifacts: ORT's artifact trio from a plain forward model.
static cl::SubCommand generateCommand(
    "generate-artifacts",
    "Training, eval and optimizer models and a checkpoint from a forward "
    "model, by odt's autodiff");
static cl::opt<std::string> forwardModel(cl::Positional, cl::Required,
                                         cl::desc("MODEL.onnx"),
                                         cl::sub(generateCommand));
static cl::opt<std::string> generateOut("o", cl::Required,
                                        cl::desc("Artifact folder"),
                                        cl::value_desc("ARTIFACT_DIR"),
                                        cl::sub(generateCommand));
static cl::list<std::string> trainableParams(
    "trainable",
    cl::desc("Trainable initializers: names, or glob patterns that select "
             "among the weights (default: every floating-point weight not "
             "frozen; scalars, BatchNorm running statistics and values read "
             "only as settings stay constants)"),
    cl::value_desc("NAME|PATTERN"), cl::CommaSeparated,
    cl::sub(generateCommand));
static cl::list<std::string>
    requiresGrad("requires-grad", cl::desc("Same as --trainable (ORT's name)"),
                 cl::value_desc("NAME|PATTERN"), cl::CommaSeparated,
                 cl::sub(generateCommand));
static cl::list<std::string> frozenParams(
    "frozen",
    cl::desc("Initializers kept as parameters without gradients (names or "
             "glob patterns)"),
    cl::value_desc("NAME|PATTERN"), cl::CommaSeparated,
    cl::sub(generateCommand));
static cl::opt<bool> keepFoldedBatchNorm(
    "keep-folded-batchnorm",
    cl::desc("Train a model whose exporter folded training-mode BatchNorms "
             "into convolutions as it is (default: refuse it)"),
    cl::sub(generateCommand));
static cl::opt<std::string> lossKind(
    "loss",
    cl::desc("MSELoss, CrossEntropyLoss, BCEWithLogitsLoss, L1Loss or none "
             "(the loss input is the loss)"),
    cl::init("none"), cl::sub(generateCommand));
static cl::opt<std::string> lossReduction("reduction",
                                          cl::desc("mean (default), sum, none"),
                                          cl::init("mean"),
                                          cl::sub(generateCommand));
static cl::opt<int64_t>
    ignoreIndex("ignore-index",
                cl::desc("CrossEntropyLoss: the label that adds no loss"),
                cl::sub(generateCommand));
static cl::opt<std::string> lossWeightFile(
    "loss-weight",
    cl::desc("CrossEntropyLoss: per-class weights; BCEWithLogitsLoss: "
             "weights broadcast to the output (a .npy file)"),
    cl::value_desc("FILE.npy"), cl::sub(generateCommand));
static cl::opt<std::string> posWeightFile(
    "pos-weight",
    cl::desc("BCEWithLogitsLoss: weights of the positive term (a .npy file)"),
    cl::value_desc("FILE.npy"), cl::sub(generateCommand));
static cl::list<std::string>
    lossInputs("loss-input",
               cl::desc("The model output the loss reads (default: the first)"),
               cl::value_desc("NAME"), cl::sub(generateCommand));
static cl::list<std::string> additionalOutputs(
    "additional-output",
    cl::desc("Model outputs the training and eval graphs also return"),
    cl::value_desc("NAME"), cl::CommaSeparated, cl::sub(generateCommand));
static cl::opt<std::string> optimizerKind("optimizer",
                                          cl::desc("AdamW (default) or SGD"),
                                          cl::init("AdamW"),
                                          cl::sub(generateCommand));
static cl::opt<float> adamBeta1("beta1", cl::desc("AdamW beta1 (0.9)"),
                                cl::init(0.9f), cl::sub(generateCommand));
static cl::opt<float> adamBeta2("beta2", cl::desc("AdamW beta2 (0.999)"),
                                cl::init(0.999f), cl::sub(generateCommand));
static cl::opt<float> adamEpsilon("eps", cl::desc("AdamW epsilon (1e-6)"),
                                  cl::init(1e-6f), cl::sub(generateCommand));
static cl::opt<float> weightDecay("weight-decay",
                                  cl::desc("AdamW weight decay (0)"),
                                  cl::init(0.0f), cl::sub(generateCommand));
static cl::opt<int64_t>
    adamMode("adam-mode",
             cl::desc("AdamW mode: 0 PyTorch, 1 Hugging Face (default)"),
             cl::init(1), cl::sub(generateCommand));
static cl::opt<bool> biasCorrection("bias-correction",
                                    cl::desc("AdamW bias correction (true)"),
                                    cl::init(true), cl::sub(generateCommand));
static cl::opt<float>
    clipGradNorm("clip-grad-norm",
                 cl::desc("Clip the global gradient norm to MAX before each "
                          "update"),
                 cl::value_desc("MAX"), cl::sub(generateCommand));
static cl::opt<bool>
    nominalCheckpoint("nominal-checkpoint",
                      cl::desc("Also write nominal_checkpoint (names and "
                               "types only)"),
                      cl::sub(generateCommand));
static cl::opt<std::string>
    artifactPrefix("prefix", cl::desc("Prefix of the artifact file names"),
                   cl::sub(generateCommand));
static cl::opt<std::string>
    compileAfter("compile", cl::desc("Then compile the artifacts into OUT_DIR"),
                 cl::value_desc("OUT_DIR"), cl::sub(generateCommand));
static cl::opt<uint64_t> externalDataAbove(
    "external-data-above",
    cl::desc("Write the initializers of models larger than this many bytes "
             "to external data (default 1.8 GB; protobuf's limit is 2 GiB)"),
    cl::init(uint64_t(1800) * 1000 * 1000), cl::Hidden,
    cl::sub(generateCommand));
static cl::opt<bool> generateQuiet("quiet", cl::desc("No progress lines"),
                                   cl::sub(generateCommand));

namespace {

/// Wall-clock time per phase, printed as one line at the end.
class PhaseTimer {
public:
  explicit PhaseTimer(bool quiet) : quiet(quiet) {}
  void start(llvm::StringRef name) {
    stop();
    current = name.str();
    begin = std::chrono::steady_clock::now();
    if (!quiet)
      llvm::errs() << "odt-compile: " << name << "...\n";
  }
  void stop() {
    if (current.empty())
      return;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    phases.push_back({current, seconds});
    current.clear();
  }
  void print() {
    stop();
    double total = 0;
    std::string line;
    for (auto &[name, seconds] : phases) {
      total += seconds;
      line += llvm::formatv("{0}{1} {2:f3}", line.empty() ? "" : ", ", name,
                            seconds)
                  .str();
    }
    llvm::errs() << llvm::formatv(
        "odt-compile: done in {0:f3} s ({1}), peak memory {2} MiB\n", total,
        line, peakMemoryMiB());
  }

  /// The process's peak resident memory so far, in MiB (-1: unknown).
  static long peakMemoryMiB() {
    // VmHWM belongs to this program's memory image; getrusage's ru_maxrss
    // also counts the image before exec, i.e. the parent that forked us
    // (a Python benchmark with PyTorch loaded reported 529 MiB).
    if (auto status =
            llvm::MemoryBuffer::getFileAsStream("/proc/self/status")) {
      llvm::SmallVector<llvm::StringRef> lines;
      (*status)->getBuffer().split(lines, '\n');
      for (llvm::StringRef line : lines) {
        if (!line.consume_front("VmHWM:"))
          continue;
        line = line.trim();
        long kilobytes = 0;
        if (line.consume_back("kB") && !line.trim().getAsInteger(10, kilobytes))
          return kilobytes / 1024;
      }
    }
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
      return -1;
    return usage.ru_maxrss / 1024; // kilobytes on Linux
  }

private:
  bool quiet;
  std::string current;
  std::chrono::steady_clock::time_point begin;
  std::vector<std::pair<std::string, double>> phases;
};

/// The driver's progress as odt-compile's lines: a phase starts the timer's
/// next phase, a note is a line of its own.
class TimedProgress : public odt::CompileObserver {
public:
  TimedProgress(PhaseTimer &timer, bool quiet) : timer(timer), quiet(quiet) {}
  void phase(llvm::StringRef name) override { timer.start(name); }
  void note(llvm::StringRef line) override {
    if (!quiet)
      llvm::errs() << "odt-compile: " << line << "\n";
  }

private:
  PhaseTimer &timer;
  bool quiet;
};

int fail(const llvm::Twine &message) {
  llvm::errs() << "odt-compile: error: " << message << "\n";
  return 1;
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a
/// reader never sees half a file.
bool writeFileAtomically(const std::string &path, llvm::StringRef bytes,
                         std::string &error) {
  std::string temp = path + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temp, ec);
    if (ec) {
      error = "cannot write '" + temp + "': " + ec.message();
      return false;
    }
    out << bytes;
    out.close();
    if (out.has_error()) {
      error = "cannot write '" + temp + "': " + out.error().message();
      out.clear_error();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  return true;
}

std::string joinPath(llvm::StringRef dir, llvm::StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

/// Creates `outDir` and an empty staging folder `name` inside it, where a
/// set of outputs is written before installOutputs moves it into place.
bool makeStaging(const std::string &outDir, const char *name,
                 std::string &staging, std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    error = "cannot create '" + outDir + "': " + ec.message();
    return false;
  }
  staging = joinPath(outDir, name);
  llvm::sys::fs::remove_directories(staging);
  if (std::error_code ec = llvm::sys::fs::create_directories(staging)) {
    error = "cannot create '" + staging + "': " + ec.message();
    return false;
  }
  return true;
}

/// Moves the finished files from `staging` into `outDir` as one set: files
/// they replace are kept aside until every new file is in place, and put back
/// if any move fails, so OUT_DIR holds either the old set or the new one.
bool installOutputs(const std::string &staging, const std::string &outDir,
                    const std::vector<std::string> &names, std::string &error) {
  for (const std::string &name : names)
    if (llvm::sys::fs::is_directory(joinPath(outDir, name))) {
      error = "cannot write '" + joinPath(outDir, name) + "': it is a folder";
      return false;
    }
  std::vector<std::string> backedUp, installed;
  auto rollBack = [&]() {
    for (const std::string &name : installed)
      llvm::sys::fs::remove(joinPath(outDir, name));
    for (const std::string &name : backedUp)
      (void)llvm::sys::fs::rename(joinPath(staging, name + ".previous"),
                                  joinPath(outDir, name));
  };
  for (const std::string &name : names) {
    std::string target = joinPath(outDir, name);
    if (llvm::sys::fs::exists(target)) {
      if (std::error_code ec = llvm::sys::fs::rename(
              target, joinPath(staging, name + ".previous"))) {
        error = "cannot replace '" + target + "': " + ec.message();
        rollBack();
        return false;
      }
      backedUp.push_back(name);
    }
    if (std::error_code ec =
            llvm::sys::fs::rename(joinPath(staging, name), target)) {
      error =
          "cannot move '" + name + "' into '" + outDir + "': " + ec.message();
      rollBack();
      return false;
    }
    installed.push_back(name);
  }
  return true;
}

/// "node 'NAME'" for a diagnostic located at an imported node, else "".
std::string nodeNameOf(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = nodeNameOf(inner); !name.empty())
        return name;
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return "";
}

/// The MLIR context of one run, with odt's dialects and a diagnostic handler
/// that prints one line per message, prefixed by the tool.
struct Session {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> contextPtr;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  MLIRContext &context;

  Session() : contextPtr(makeContext(registry)), context(*contextPtr) {
    // Messages of odt's own passes name the node already; MLIR's generic
    // ones (type constraints, legalization) get the node from the location.
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [](Diagnostic &diag) {
          const char *kind =
              diag.getSeverity() == DiagnosticSeverity::Error     ? "error"
              : diag.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                  : "note";
          std::string message = diag.str();
          std::string node = nodeNameOf(diag.getLocation());
          if (!node.empty() &&
              message.find("'" + node + "'") == std::string::npos)
            message = "node '" + node + "': " + message;
          llvm::errs() << "odt-compile: " << kind << ": " << message << "\n";
          for (const Diagnostic &note : diag.getNotes())
            llvm::errs() << "odt-compile: note: " << note.str() << "\n";
          return success();
        });
  }

  static std::unique_ptr<MLIRContext> makeContext(DialectRegistry &registry) {
    odt::registerCompilerDialects(registry);
    odt::registerGradientRules(registry);
    odt::registerCompilerPasses();
    auto context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    // The messages say what is wrong and where; an IR dump would bury them.
    context->printOpOnDiagnostic(false);
    return context;
  }
};

/// The cache's size limit: $ODT_CACHE_MAX_MB, else 2 GiB.
uint64_t cacheLimitBytes() {
  uint64_t megabytes = 2048;
  if (const char *env = std::getenv("ODT_CACHE_MAX_MB"))
    if (llvm::StringRef(env).getAsInteger(10, megabytes))
      megabytes = 2048;
  return megabytes << 20;
}

/// The cache key of compiling `paths` with these options, or nullopt when an
/// input cannot be read (the compilation then says what is wrong).
std::optional<std::string>
computeCacheKey(const odt::ArtifactPaths &paths,
                const odt::CodegenTarget &target, const std::string &prefix,
                bool simpleCodegen, const odt::KernelSelection &kernels) {
  odt::CacheKey key;
  std::string error;
  // The compiler itself: odt's code is linked into the executable; MLIR and
  // LLVM are the shared libraries of this version.
  std::string executable = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&computeCacheKey));
  if (executable.empty() || !key.addFile("compiler", executable, error))
    return std::nullopt;
  key.addText("llvm", LLVM_VERSION_STRING);
  // The machine the code is for, resolved: "this machine" differs between
  // machines.
  llvm::TargetMachine *machine = odt::getTargetMachine(target, error);
  if (!machine)
    return std::nullopt;
  key.addText("triple", machine->getTargetTriple().str());
  key.addText("cpu", machine->getTargetCPU());
  key.addText("features", machine->getTargetFeatureString());
  key.addText("name", prefix);
  key.addText("simple-codegen", simpleCodegen ? "1" : "0");
  key.addText("contraction-kernel", kernels.contractionKernel);
  key.addText("convolution-kernel", kernels.convolutionKernel);
  key.addText("gpu-loops-on-cpu", gpuLoopsOnCPU ? "1" : "0");
  key.addText("gpu-arch", llvm::join(gpuArch, ","));
  key.addText("gpu-precision", gpuPrecision);
  // The cubins are ptxas's: another ptxas (or none) makes other bytes.
  if (gpuArch.empty() || resolvedPtxas.empty())
    key.addText("ptxas", "none");
  else if (!key.addFile("ptxas", resolvedPtxas, error))
    return std::nullopt;
  for (auto [label, path] :
       {std::pair<const char *, const std::string *>{"train", &paths.train},
        {"eval", &paths.eval},
        {"optimizer", &paths.optimizer}}) {
    if (path->empty())
      key.addText(label, "none");
    else if (!key.addFile(label, *path, error))
      return std::nullopt;
  }
  // Of the checkpoint, the compiler reads the parameters' names and whether
  // each is trainable: a checkpoint saved after training keeps the key.
  if (paths.checkpoint.empty()) {
    key.addText("checkpoint", "none");
  } else {
    auto names = odt::readCheckpointParameterNames(paths.checkpoint, error);
    if (failed(names))
      return std::nullopt;
    std::string list;
    for (auto &[name, trainable] : names->parameters)
      list +=
          std::to_string(name.size()) + ":" + name + (trainable ? "T" : "F");
    key.addText("checkpoint", list);
  }
  for (auto &[name, value] : paths.inputValues) {
    std::string dims;
    for (int64_t dim : value.dims)
      dims += std::to_string(dim) + ",";
    key.addText("input-value", name);
    key.addText("input-type", std::to_string(value.dataType) + ":" + dims);
    key.addText("input-bytes",
                llvm::StringRef(value.bytes.data(), value.bytes.size()));
  }
  return key.finish();
}

/// Compiles the artifacts `paths` into `outDir`.
int compile(const odt::ArtifactPaths &paths, const std::string &outDir,
            bool beQuiet, const odt::CodegenTarget &target = {},
            unsigned jobs = 0) {
  // Copies of the options: lld, which runs in this process (joining code
  // parts, linking the library), resets every llvm::cl option.
  const std::string emit = ::emit, prefix = ::prefix;
  const bool simpleCodegen = ::simpleCodegen;
  odt::KernelSelection kernels;
  kernels.contractionKernel = ::contractionKernel;
  kernels.contractionRemarks = ::contractionRemarks;
  kernels.convolutionKernel = ::convolutionKernel;
  kernels.convolutionRemarks = ::convolutionRemarks;
  const bool remarks = kernels.contractionRemarks || kernels.convolutionRemarks;
  auto start = std::chrono::steady_clock::now();
  std::string error;

  // A compiled model already made from the same inputs is copied.
  std::optional<odt::CompileCache> cache;
  std::optional<std::string> cacheKey;
  // (Remarks and per-pass verification come from compiling: with them,
  // nothing is taken from it.)
  if (emit.empty() && !noCache && !remarks && !verifyEach) {
    std::string folder = odt::CompileCache::resolveFolder(cacheDir);
    cacheKey = computeCacheKey(paths, target, prefix, simpleCodegen, kernels);
    if (!folder.empty() && cacheKey)
      cache.emplace(folder, cacheLimitBytes());
  }
  if (cache) {
    auto warn = [](const std::string &message) {
      llvm::errs() << "odt-compile: warning: " << message << "\n";
    };
    if (auto files = cache->fetch(*cacheKey, warn)) {
      // The checked bytes are what is installed, as one set (see below).
      std::string staging;
      if (!makeStaging(outDir, ".odt-compile-staging", staging, error))
        return fail(error);
      std::vector<std::string> names;
      bool written = true;
      for (const odt::CompileCache::File &file : *files) {
        written = written && writeFileAtomically(joinPath(staging, file.name),
                                                 file.bytes, error);
        names.push_back(file.name);
      }
      if (written && llvm::is_contained(names, "libmodel.so"))
        llvm::sys::fs::setPermissions(joinPath(staging, "libmodel.so"),
                                      llvm::sys::fs::perms(0755));
      bool installed = written && installOutputs(staging, outDir, names, error);
      llvm::sys::fs::remove_directories(staging);
      if (!installed)
        return fail(error);
      if (!beQuiet)
        llvm::errs() << llvm::formatv(
            "odt-compile: done in {0:f3} s (from the cache: {1}), peak "
            "memory {2} MiB\n",
            std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count(),
            joinPath(cache->getFolder(), *cacheKey),
            PhaseTimer::peakMemoryMiB());
      return 0;
    }
  }

  Session session;
  PhaseTimer timer(beQuiet);
  TimedProgress progress(timer, beQuiet);
  odt::CompileOptions options;
  options.prefix = prefix;
  options.optimize = !simpleCodegen;
  options.target = target;
  options.threads = jobs;
  options.kernels = kernels;
  options.gpuLoopsOnCPU = ::gpuLoopsOnCPU;
  options.gpuPrecision = ::gpuPrecision;
  options.verification =
      verifyEach ? odt::Verification::EachPass : odt::Verification::AtEnd;
  options.stop = emit == "onnx"     ? odt::CompileStop::Onnx
                 : emit == "linalg" ? odt::CompileStop::Linalg
                 : emit == "llvm"   ? odt::CompileStop::LLVM
                 : emit == "asm"    ? odt::CompileStop::Asm
                 : emit == "ptx"    ? odt::CompileStop::PTX
                                    : odt::CompileStop::Object;
  if (!gpuArch.empty())
    options.gpuChips.assign(gpuArch.begin(), gpuArch.end());
  options.gpu = !gpuArch.empty() && emit != "ptx";
  if (options.gpu)
    options.ptxas = resolvedPtxas;
  odt::CompileOutput model;
  if (failed(odt::compileArtifacts(session.context, paths, options, model,
                                   error, llvm::outs(), &progress)))
    return error.empty() ? 1 : fail(error);
  if (options.stop != odt::CompileStop::Object)
    return 0;
  std::vector<odt::ParameterValue> &forwardParameters = model.forwardParameters;

  // Outputs go to a fresh staging folder first; only a complete set is moved
  // into OUT_DIR, so a failure leaves nothing half-written there.
  std::string staging, stagingError;
  if (!makeStaging(outDir, ".odt-compile-staging", staging, stagingError))
    return fail(stagingError);
  auto cleanup = [&]() { llvm::sys::fs::remove_directories(staging); };
  std::vector<std::pair<std::string, std::string>> files = {
      {"model.o", model.object}};
  if (emit.empty()) {
    files.push_back({"model.h", model.header});
    files.push_back({"model.json", model.json});
    // A GPU build's kernels, also in the descriptor: to read, assemble
    // (ptxas) or disassemble without the runtime.
    for (auto &[chip, ptx] : model.gpuImages)
      files.push_back({"model." + chip + ".ptx", ptx});
    for (auto &[chip, cubin] : model.gpuCubins)
      files.push_back({"model." + chip + ".cubin", cubin});
  }
  for (auto &[name, bytes] : files)
    if (!writeFileAtomically(joinPath(staging, name), bytes, error)) {
      cleanup();
      return fail(error);
    }
  if (emit.empty() && !forwardParameters.empty()) {
    // A plain forward model: its initializers are its parameters, written as
    // the checkpoint odt-run and the C API load by default.
    odt::CheckpointState state;
    for (odt::ParameterValue &value : forwardParameters) {
      auto parameter = std::make_shared<odt::Parameter>();
      parameter->name = value.name;
      parameter->dtype = static_cast<odt::DataType>(value.dataType);
      parameter->requiresGrad = false;
      parameter->data =
          odt::Tensor::copyOf(parameter->dtype, value.dims, value.bytes.data());
      state.parameters.push_back(parameter);
    }
    odt::Status saved =
        odt::saveCheckpoint(state, joinPath(staging, "checkpoint"),
                            /*includeOptimizerState=*/false);
    if (!saved) {
      cleanup();
      return fail(saved.message());
    }
    files.push_back({"checkpoint", ""});
  }
  if (emit.empty()) {
    timer.start("link");
    if (!odt::linkSharedLibrary(joinPath(staging, "model.o"),
                                joinPath(staging, "libmodel.so"), error)) {
      cleanup();
      return fail(error);
    }
    files.push_back({"libmodel.so", ""});
  }
  std::vector<std::string> names;
  for (auto &[name, bytes] : files)
    names.push_back(name);
  if (cache) {
    // An output made with data from external files depends on more than
    // the key holds: it is not kept.
    std::string cacheError;
    if (odt::getExternalDataReadCount() != 0) {
      if (!beQuiet)
        llvm::errs() << "odt-compile: note: not cached (the model keeps "
                        "tensors in external data files)\n";
    } else if (!cache->store(*cacheKey, staging, names, cacheError)) {
      llvm::errs() << "odt-compile: warning: not cached: " << cacheError
                   << "\n";
    }
  }
  bool installed = installOutputs(staging, outDir, names, error);
  cleanup();
  if (!installed)
    return fail(error);
  if (!beQuiet)
    timer.print();
  return 0;
}

/// Prints which initializers became parameters and which stay constants,
/// with the reason: what a user means by "parameters" is a choice they
/// must be able to check (and change with --trainable / --frozen).
void printParameterChoice(const odt::Artifacts &artifacts) {
  auto printList = [](const char *what, size_t count,
                      const std::function<void(size_t)> &printItem) {
    if (!count)
      return;
    llvm::errs() << "odt-compile: " << count << " " << what << ":";
    for (size_t i = 0; i < count; ++i) {
      llvm::errs() << (i ? ", " : " ");
      printItem(i);
    }
    llvm::errs() << "\n";
  };
  std::vector<const odt::ArtifactParameter *> trainable, frozen;
  for (const odt::ArtifactParameter &parameter : artifacts.parameters)
    (parameter.trainable ? trainable : frozen).push_back(&parameter);
  printList("trainable parameters", trainable.size(),
            [&](size_t i) { llvm::errs() << trainable[i]->name; });
  printList("frozen parameters", frozen.size(),
            [&](size_t i) { llvm::errs() << frozen[i]->name; });
  for (const std::string &note : artifacts.notes)
    llvm::errs() << "odt-compile: note: " << note << "\n";
  printList("floating-point initializers kept as constants",
            artifacts.constants.size(), [&](size_t i) {
              llvm::errs() << artifacts.constants[i].first << " ("
                           << artifacts.constants[i].second << ")";
            });
}

/// generate-artifacts: builds the trio and the checkpoint in memory, writes
/// them to a staging folder inside ARTIFACT_DIR and moves the complete set
/// into place; then, with --compile, compiles them.
int generate() {
  const std::string outDir = generateOut;
  odt::ArtifactOptions options;
  options.modelPath = forwardModel;
  options.requiresGrad.assign(trainableParams.begin(), trainableParams.end());
  options.requiresGrad.insert(options.requiresGrad.end(), requiresGrad.begin(),
                              requiresGrad.end());
  if (!requiresGrad.empty() && trainableParams.empty())
    options.trainableOption = "--requires-grad";
  options.frozen.assign(frozenParams.begin(), frozenParams.end());
  options.keepFoldedBatchNorm = keepFoldedBatchNorm;
  options.loss = lossKind;
  options.reduction = lossReduction;
  if (ignoreIndex.getNumOccurrences())
    options.ignoreIndex = ignoreIndex;
  options.lossInputs.assign(lossInputs.begin(), lossInputs.end());
  options.additionalOutputs.assign(additionalOutputs.begin(),
                                   additionalOutputs.end());
  options.optimizer = optimizerKind;
  options.beta1 = adamBeta1;
  options.beta2 = adamBeta2;
  options.epsilon = adamEpsilon;
  options.weightDecay = weightDecay;
  options.adamMode = adamMode;
  options.biasCorrection = biasCorrection;
  if (clipGradNorm.getNumOccurrences())
    options.clipGradNorm = clipGradNorm;
  if (adamMode != 0 && adamMode != 1)
    return fail("--adam-mode must be 0 or 1");
  for (auto [file, option, target] :
       {std::make_tuple(std::string(lossWeightFile), "--loss-weight",
                        &options.lossWeight),
        std::make_tuple(std::string(posWeightFile), "--pos-weight",
                        &options.posWeight)}) {
    if (file.empty())
      continue;
    odt::Result<odt::Tensor> tensor = odt::readNpy(file);
    if (!tensor)
      return fail(std::string(option) + ": " + tensor.getStatus().message());
    const char *bytes = static_cast<const char *>(tensor->data());
    *target =
        odt::TensorValue{static_cast<int32_t>(tensor->dtype()), tensor->shape(),
                         std::string(bytes, tensor->byteSize())};
  }
  if (options.ignoreIndex && options.loss != "CrossEntropyLoss")
    return fail("--ignore-index applies to --loss CrossEntropyLoss only");
  const std::string filePrefix = artifactPrefix;
  const std::string compileDir = compileAfter;
  const bool beQuiet = generateQuiet;
  if (!filePrefix.empty() &&
      filePrefix.find_first_of("/\\") != std::string::npos)
    return fail("--prefix must not contain a path separator");

  odt::Artifacts artifacts;
  {
    Session session;
    if (!beQuiet)
      llvm::errs() << "odt-compile: generating artifacts from '"
                   << options.modelPath << "'...\n";
    if (failed(odt::generateArtifacts(session.context, options, artifacts)))
      return 1;
  }
  if (!beQuiet)
    printParameterChoice(artifacts);

  std::string staging, stagingError;
  if (!makeStaging(outDir, ".odt-generate-staging", staging, stagingError))
    return fail(stagingError);
  auto cleanup = [&]() { llvm::sys::fs::remove_directories(staging); };
  std::string error;
  std::vector<std::string> names;
  std::pair<const char *, ::onnx::ModelProto *> models[] = {
      {"training_model.onnx", &artifacts.training},
      {"eval_model.onnx", &artifacts.eval},
      {"optimizer_model.onnx", &artifacts.optimizer}};
  for (auto &[name, model] : models) {
    std::string fileName = filePrefix + name;
    // A model protobuf cannot hold (2 GiB) keeps its large initializers in
    // `<file>.data`, as ONNX's external data.
    if (model->ByteSizeLong() > externalDataAbove) {
      std::string dataName = fileName + ".data";
      if (failed(odt::moveToExternalData(*model, dataName,
                                         joinPath(staging, dataName),
                                         /*threshold=*/64, error))) {
        cleanup();
        return fail(error);
      }
      if (llvm::sys::fs::exists(joinPath(staging, dataName)))
        names.push_back(dataName);
    }
    if (failed(odt::writeModel(*model, joinPath(staging, fileName), error))) {
      cleanup();
      return fail(error);
    }
    names.push_back(fileName);
  }
  odt::CheckpointState state, nominal;
  nominal.isNominal = true;
  for (const odt::ArtifactParameter &value : artifacts.parameters) {
    auto parameter = std::make_shared<odt::Parameter>();
    parameter->name = value.name;
    parameter->dtype = static_cast<odt::DataType>(value.dataType);
    parameter->requiresGrad = value.trainable;
    auto empty = std::make_shared<odt::Parameter>(*parameter);
    parameter->data =
        odt::Tensor::copyOf(parameter->dtype, value.dims, value.bytes.data());
    state.parameters.push_back(parameter);
    nominal.parameters.push_back(empty);
  }
  std::vector<std::pair<std::string, odt::CheckpointState *>> checkpoints = {
      {filePrefix + "checkpoint", &state}};
  if (nominalCheckpoint)
    checkpoints.push_back({filePrefix + "nominal_checkpoint", &nominal});
  for (auto &[name, checkpoint] : checkpoints) {
    odt::Status saved = odt::saveCheckpoint(
        *checkpoint, joinPath(staging, name), /*includeOptimizerState=*/false);
    if (!saved) {
      cleanup();
      return fail(saved.message());
    }
    names.push_back(name);
  }
  bool installed = installOutputs(staging, outDir, names, error);
  cleanup();
  if (!installed)
    return fail(error);
  if (!beQuiet)
    llvm::errs() << "odt-compile: wrote " << llvm::join(names, ", ") << " to '"
                 << outDir << "'\n";
  if (compileDir.empty())
    return 0;
  odt::ArtifactPaths paths{
      joinPath(outDir, filePrefix + "training_model.onnx"),
      joinPath(outDir, filePrefix + "eval_model.onnx"),
      joinPath(outDir, filePrefix + "optimizer_model.onnx"),
      joinPath(outDir, filePrefix + "checkpoint"),
      {}};
  return compile(paths, compileDir, beQuiet);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // First: --mlir-print-ir-after=PASS and its kin know the passes registered
  // when they are created, odt's included.
  odt::registerCompilerPasses();
  // MLIR's printing options (--mlir-print-debuginfo shows node names as
  // locations in --emit output).
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  // --mlir-timing (each stage's passes), --mlir-print-ir-after=PASS and the
  // rest of MLIR's pass manager options; --time-passes covers LLVM's.
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "odt-compile (odt) " << OdtGetVersionString() << "\n  LLVM and MLIR "
       << LLVM_VERSION_STRING
       << "\n  default target: " << llvm::sys::getProcessTriple() << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "odt-compile: ONNX Runtime training artifacts to native code\n\n"
      "  odt-compile ARTIFACT_DIR -o OUT_DIR\n"
      "  odt-compile --train F [--eval F] [--optimizer F] [--checkpoint F] "
      "-o OUT_DIR\n");

  if (generateCommand)
    return generate();

  // Copies of the options: lld, which runs in this process, resets every
  // llvm::cl option when it links.
  const std::string outDir = outputDir;
  const bool beQuiet = quiet;
  odt::ArtifactPaths paths{
      trainPath, evalPath, optimizerPath, checkpointPath, {}};
  if (!artifactDir.empty()) {
    if (!trainPath.empty() || !evalPath.empty() || !optimizerPath.empty())
      return fail("give either ARTIFACT_DIR or --train/--eval/--optimizer");
    if (!llvm::sys::fs::is_directory(artifactDir))
      return fail("'" + artifactDir + "' is not a folder");
    auto pick = [&](const char *name) {
      std::string path = joinPath(artifactDir, name);
      return llvm::sys::fs::exists(path) ? path : std::string();
    };
    paths.train = pick("training_model.onnx");
    paths.eval = pick("eval_model.onnx");
    paths.optimizer = pick("optimizer_model.onnx");
    if (paths.checkpoint.empty())
      paths.checkpoint = pick("checkpoint");
    if (paths.train.empty() && paths.eval.empty())
      return fail("'" + artifactDir +
                  "' holds neither training_model.onnx nor eval_model.onnx");
  }
  if (paths.train.empty() && paths.eval.empty())
    return fail(paths.optimizer.empty()
                    ? "no model given (see --help)"
                    : "an optimizer model needs the training model it updates "
                      "(--train)");
  for (const std::string &entry : inputValues) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      return fail("--input-value needs NAME=FILE.npy, got '" + entry + "'");
    std::string name = entry.substr(0, eq);
    odt::Result<odt::Tensor> tensor = odt::readNpy(entry.substr(eq + 1));
    if (!tensor)
      return fail("--input-value " + name + ": " +
                  tensor.getStatus().message());
    const char *bytes = static_cast<const char *>(tensor->data());
    odt::InputValue value{static_cast<int32_t>(tensor->dtype()),
                          tensor->shape(),
                          std::vector<char>(bytes, bytes + tensor->byteSize())};
    if (!paths.inputValues.emplace(name, std::move(value)).second)
      return fail("--input-value " + name + " is given twice");
  }
  static const char *kKernels[] = {"packed", "direct", "dots", "swapped"};
  if (!contractionKernel.empty() &&
      !llvm::is_contained(kKernels, contractionKernel))
    return fail("unknown --contraction-kernel '" + contractionKernel +
                "' (packed, direct, dots, swapped)");
  if ((!contractionKernel.empty() || contractionRemarks) && simpleCodegen)
    return fail("--contraction-kernel and --contraction-remarks choose among "
                "product kernels, which --simple-codegen does not use");
  if (!convolutionKernel.empty() &&
      !odt::cpu::isConvolutionKernelName(convolutionKernel))
    return fail("unknown --convolution-kernel '" + convolutionKernel +
                "' (linalg, image_columns, image_partials, "
                "scattered_columns)");
  if ((!convolutionKernel.empty() || convolutionRemarks) && simpleCodegen)
    return fail("--convolution-kernel and --convolution-remarks choose among "
                "convolution kernels, which --simple-codegen does not use");
  static const char *kStages[] = {"onnx", "linalg", "llvm",
                                  "asm",  "obj",    "ptx"};
  if (!emit.empty() && !llvm::is_contained(kStages, emit))
    return fail("unknown --emit stage '" + emit +
                "' (onnx, linalg, llvm, asm, obj, ptx)");
  for (const std::string &chip : gpuArch)
    if (!llvm::is_contained(odt::getSupportedGPUChips(), chip))
      return fail("unknown --gpu-arch '" + chip + "' (" +
                  llvm::join(odt::getSupportedGPUChips(), ", ") + ")");
  if (!llvm::is_contained(odt::getSupportedGPUPrecisions(),
                          std::string(gpuPrecision)))
    return fail("unknown --gpu-precision '" + gpuPrecision + "' (" +
                llvm::join(odt::getSupportedGPUPrecisions(), ", ") + ")");
  if (gpuPrecision != "fp32" && gpuArch.empty() && !gpuLoopsOnCPU &&
      emit != "ptx")
    return fail("--gpu-precision chooses a GPU build's arithmetic: give "
                "--gpu-arch (or --gpu-loops-on-cpu, or --emit=ptx)");
  if (!gpuArch.empty() && gpuLoopsOnCPU)
    return fail("--gpu-arch builds for a GPU and --gpu-loops-on-cpu for the "
                "CPU: give one");
  if (!gpuArch.empty() && simpleCodegen)
    return fail("--simple-codegen chooses the CPU's reference code; a GPU "
                "build (--gpu-arch) has none");
  if (!ptxasOption.empty() && gpuArch.empty())
    return fail("--ptxas assembles a GPU build's kernels: give --gpu-arch");
  std::string ptxasError;
  if (!resolvePtxas(ptxasError))
    return fail(ptxasError);
  bool printsOnly = !emit.empty() && emit != "obj";
  if (!printsOnly && outDir.empty())
    return fail("no output folder (-o OUT_DIR)");
  if (!llvm::StringRef(prefix)
           .ltrim("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
                  "0123456789")
           .empty() ||
      prefix.empty() || llvm::isDigit(prefix[0]))
    return fail("--name must be a C identifier");
  // Checked before any work: LLVM alone would only warn about an unknown
  // CPU or feature and then make code without it.
  odt::CodegenTarget target{targetTriple, targetCpu, targetFeatures};
  std::string targetError;
  if (!odt::getTargetMachine(target, targetError))
    return fail(targetError);

  return compile(paths, outDir, beQuiet, target, jobCount);
}
