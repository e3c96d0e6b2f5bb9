// odt-run: train or evaluate a model compiled by odt-compile, with inputs
// from NumPy .npy files.
//
//   odt-run train OUT_DIR --checkpoint CKPT --input NAME=FILE.npy ...
//                 [--steps N | --epochs E] [--batch-size B] [--shuffle SEED]
//                 [--eval-input NAME=FILE.npy ... [--eval-every N]]
//                 [--lr LR] [--save CKPT] [--resume]
//                 [--scheduler linear|cosine|constant --warmup N --total N]
//                 [--json] [--stop-on-nan]
//   odt-run eval  OUT_DIR [--checkpoint CKPT] --input NAME=FILE.npy ...
//                 [--output NAME=FILE.npy ...] [--json]
//   odt-run info  OUT_DIR [--json]
//   odt-run --version
//
// train runs N iterations of {TrainStep, OptimizerStep, [SchedulerStep],
// LazyResetGrad} and prints one line per step: the step number (the
// optimizer's count), the loss (the training model's first output) and the
// learning rate the step used. With --batch-size B the input files hold a
// dataset (rows along the first dim) and step i trains on its i-th run of B
// rows, starting over after the last (a shorter last batch included);
// --shuffle SEED visits the rows in a new order on every pass (the order
// depends on SEED only, the same on every machine). --epochs E runs E passes
// and prints one line per epoch instead (the mean training loss over its
// rows); --eval-input gives a held-out set that the eval graph scores every
// --eval-every N steps (default: at the end of each epoch, or after the last
// step), in batches of B.
// Flags take their value as the next argument or after '=' (--steps=10).
// --save writes parameters, optimizer state, learning rate and scheduler as
// a checkpoint; --resume continues from them (without it, training starts a
// fresh optimizer on the checkpoint's parameters). A NaN or infinite loss
// gets a warning on stderr (and null in --json lines: JSON has no NaN);
// --stop-on-nan makes it an error instead, before the optimizer applies that
// step and before anything is saved.

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "Module.h"
#include "Npy.h"
#include "Optimizer.h"
#include "TrainingSession.h"
#include "odt/odt.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {

const char *kUsage =
    "usage:\n"
    "  odt-run train OUT_DIR --checkpoint CKPT --input NAME=FILE.npy ...\n"
    "                [--steps N] [--batch-size B] [--lr LR] [--save CKPT]\n"
    "                [--resume]\n"
    "                [--scheduler linear|cosine|constant\n"
    "                 --warmup N --total N]\n"
    "                [--json] [--stop-on-nan]\n"
    "                [--epochs E] [--shuffle SEED]\n"
    "                [--eval-input NAME=FILE.npy ... [--eval-every N]]\n"
    "      --batch-size B: the inputs are a dataset; step i trains on its\n"
    "      i-th batch of B rows (cycling)\n"
    "      --shuffle SEED: a new order of the rows on every pass\n"
    "      --epochs E: E passes over the dataset, one line per epoch\n"
    "      --eval-input: a held-out set for the eval graph, scored every\n"
    "      --eval-every N steps (default: at each epoch's end, or after\n"
    "      the last step)\n"
    "      --stop-on-nan: a NaN or infinite loss is an error (default: a\n"
    "      warning), before the optimizer applies it and before --save\n"
    "  odt-run eval  OUT_DIR [--checkpoint CKPT] --input NAME=FILE.npy ...\n"
    "                [--output NAME=FILE.npy ...] [--json]\n"
    "  odt-run info  OUT_DIR [--json]\n"
    "      the entry points' inputs and outputs, the parameters and the\n"
    "      optimizer of a compiled model\n"
    "  odt-run --version\n"
    "  odt-run bench OUT_DIR [--checkpoint CKPT] --input NAME=FILE.npy ...\n"
    "                [--warmup-runs N] [--repetitions N] [--json]\n"
    "      times a training step (TrainStep + OptimizerStep + LazyResetGrad)\n"
    "      and EvalStep, each after N warm-up runs; prints median, min, max\n"
    "  every command takes [--threads N]: threads of the compiled parallel\n"
    "      loops (default: one per core), [--keep-denormals]: IEEE\n"
    "      denormal floats in the steps (default: flushed to zero), and\n"
    "      [--device cpu|cuda|cuda:N]: where the steps run (default cpu;\n"
    "      cuda runs a GPU build, odt-compile --gpu-arch, with the session's\n"
    "      state on the device)\n"
    "  flags take their value as the next argument or after '='\n";

struct Options {
  std::string command, modelDir, checkpoint, save;
  std::vector<std::pair<std::string, std::string>> inputs, outputs, evalInputs;
  long steps = 1;
  bool stepsGiven = false;
  long batchSize = 0;
  long epochs = 0, evalEvery = 0;
  bool shuffle = false;
  uint64_t shuffleSeed = 0;
  float learningRate = NAN;
  bool json = false, resume = false, keepDenormals = false;
  bool stopOnNan = false;
  std::string scheduler;
  long warmup = -1, total = -1;
  long warmupRuns = 3, repetitions = 20;
  long threads = 0;
  odt::cuda::DeviceSpec device;
};

int usageError(const std::string &message) {
  std::fprintf(stderr, "odt-run: error: %s\n%s", message.c_str(), kUsage);
  return 2;
}

int fail(const odt::Status &status) {
  std::fprintf(stderr, "odt-run: error: %s\n", status.message().c_str());
  return 1;
}

bool parseNameFile(const std::string &text,
                   std::pair<std::string, std::string> &out) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return false;
  out = {text.substr(0, eq), text.substr(eq + 1)};
  return true;
}

/// Parses argv; returns 0 on success or the exit code of a usage error.
int parseOptions(int argc, char **argv, Options &options) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : -1;
  }
  options.command = argv[1];
  if (options.command == "--version" || options.command == "version") {
    std::printf("odt-run (odt) %s\n", OdtGetVersionString());
    return -1;
  }
  if (options.command != "train" && options.command != "eval" &&
      options.command != "bench" && options.command != "info")
    return usageError("unknown command '" + options.command + "'");
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    // --flag=value is --flag value.
    std::string inlineValue;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        inlineValue = arg.substr(eq + 1);
        hasInlineValue = true;
        arg.resize(eq);
      }
    }
    auto value = [&](const char *flag) -> const char * {
      (void)flag;
      if (hasInlineValue) {
        hasInlineValue = false;
        return inlineValue.c_str();
      }
      if (i + 1 >= argc)
        return nullptr;
      return argv[++i];
    };
    bool isSwitch = arg == "--json" || arg == "--resume" ||
                    arg == "--stop-on-nan" || arg == "--keep-denormals";
    if (isSwitch && hasInlineValue)
      return usageError(arg + " takes no value");
    if (arg == "--checkpoint") {
      const char *v = value("--checkpoint");
      if (!v)
        return usageError("--checkpoint needs a file");
      options.checkpoint = v;
    } else if (arg == "--input" || arg == "--output" || arg == "--eval-input") {
      const char *v = value(arg.c_str());
      std::pair<std::string, std::string> entry;
      if (!v || !parseNameFile(v, entry))
        return usageError(arg + " needs NAME=FILE.npy");
      (arg == "--input"    ? options.inputs
       : arg == "--output" ? options.outputs
                           : options.evalInputs)
          .push_back(entry);
    } else if (arg == "--epochs" || arg == "--eval-every") {
      const char *v = value(arg.c_str());
      char *end = nullptr;
      errno = 0;
      long n = v ? std::strtol(v, &end, 10) : 0;
      if (!v || !*v || *end || errno || n < 1)
        return usageError(arg + " needs a positive integer");
      (arg == "--epochs" ? options.epochs : options.evalEvery) = n;
    } else if (arg == "--shuffle") {
      const char *v = value("--shuffle");
      char *end = nullptr;
      errno = 0;
      unsigned long long seed = v ? std::strtoull(v, &end, 10) : 0;
      if (!v || !*v || *end || errno || *v == '-')
        return usageError("--shuffle needs a seed (an integer >= 0)");
      options.shuffle = true;
      options.shuffleSeed = seed;
    } else if (arg == "--steps") {
      const char *v = value("--steps");
      char *end = nullptr;
      errno = 0;
      long steps = v ? std::strtol(v, &end, 10) : 0;
      if (!v || *end || errno || steps < 1)
        return usageError("--steps needs a positive integer");
      options.steps = steps;
      options.stepsGiven = true;
    } else if (arg == "--batch-size") {
      const char *v = value("--batch-size");
      char *end = nullptr;
      errno = 0;
      long size = v ? std::strtol(v, &end, 10) : 0;
      if (!v || *end || errno || size < 1)
        return usageError("--batch-size needs a positive integer");
      options.batchSize = size;
    } else if (arg == "--lr") {
      const char *v = value("--lr");
      char *end = nullptr;
      float lr = v ? std::strtof(v, &end) : NAN;
      if (!v || *end || !std::isfinite(lr) || lr < 0)
        return usageError("--lr needs a finite number >= 0");
      options.learningRate = lr;
    } else if (arg == "--save") {
      const char *v = value("--save");
      if (!v)
        return usageError("--save needs a file");
      options.save = v;
    } else if (arg == "--resume") {
      options.resume = true;
    } else if (arg == "--scheduler") {
      const char *v = value("--scheduler");
      if (!v || (std::strcmp(v, "linear") && std::strcmp(v, "cosine") &&
                 std::strcmp(v, "constant")))
        return usageError("--scheduler needs linear, cosine or constant");
      options.scheduler = v;
    } else if (arg == "--warmup" || arg == "--total") {
      const char *v = value(arg.c_str());
      char *end = nullptr;
      errno = 0;
      long count = v ? std::strtol(v, &end, 10) : -1;
      if (!v || *end || errno || count < 0)
        return usageError(arg + " needs an integer >= 0");
      (arg == "--warmup" ? options.warmup : options.total) = count;
    } else if (arg == "--warmup-runs" || arg == "--repetitions") {
      const char *v = value(arg.c_str());
      char *end = nullptr;
      long n = v ? std::strtol(v, &end, 10) : -1;
      bool warmupRuns = arg == "--warmup-runs";
      if (!v || *end || n < (warmupRuns ? 0 : 1))
        return usageError(arg + (warmupRuns ? " needs an integer >= 0"
                                             : " needs a positive integer"));
      (warmupRuns ? options.warmupRuns : options.repetitions) = n;
    } else if (arg == "--threads") {
      const char *v = value("--threads");
      char *end = nullptr;
      long n = v ? std::strtol(v, &end, 10) : -1;
      if (!v || *end || n < 1 || n > 4096)
        return usageError("--threads needs an integer from 1 to 4096");
      options.threads = n;
    } else if (arg == "--device") {
      const char *v = value("--device");
      if (!v)
        return usageError("--device needs cpu, cuda or cuda:N");
      odt::Result<odt::cuda::DeviceSpec> device = odt::cuda::parseDeviceSpec(v);
      if (!device)
        return usageError("--device: " + device.getStatus().message());
      options.device = *device;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--stop-on-nan") {
      options.stopOnNan = true;
    } else if (arg == "--keep-denormals") {
      options.keepDenormals = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (options.modelDir.empty()) {
      options.modelDir = arg;
    } else {
      return usageError("unexpected argument '" + arg + "'");
    }
  }
  if (options.modelDir.empty())
    return usageError("no compiled model folder given");
  if (options.checkpoint.empty() && options.command == "train")
    return usageError("--checkpoint is required");
  if (options.command != "train" &&
      (options.batchSize || options.epochs || options.shuffle ||
       options.evalEvery || !options.evalInputs.empty()))
    return usageError(
        "--batch-size, --epochs, --shuffle, --eval-input and --eval-every "
        "are for train");
  if (options.epochs && options.stepsGiven)
    return usageError("--epochs and --steps exclude each other");
  if ((options.epochs || options.shuffle) && !options.batchSize)
    return usageError(std::string(options.epochs ? "--epochs" : "--shuffle") +
                      " needs --batch-size (the inputs are a dataset)");
  if (options.evalEvery && options.evalInputs.empty())
    return usageError("--eval-every needs --eval-input NAME=FILE.npy");
  if (options.command == "info" &&
      (!options.inputs.empty() || !options.checkpoint.empty() ||
       options.stepsGiven || options.threads || options.keepDenormals ||
       options.device.kind != odt::cuda::DeviceSpec::Kind::CPU))
    return usageError("info takes only OUT_DIR and --json");
  if (options.command != "eval" && !options.outputs.empty())
    return usageError("--output is for eval");
  if (options.command != "train" &&
      (!options.save.empty() || options.resume || !options.scheduler.empty() ||
       options.stopOnNan))
    return usageError(
        "--save, --resume, --scheduler and --stop-on-nan are for train");
  if (!options.scheduler.empty()) {
    if (options.warmup < 0)
      return usageError("--scheduler needs --warmup N");
    if (options.total < 0 && options.scheduler != "constant")
      return usageError("--scheduler " + options.scheduler +
                        " needs --total N");
  } else if (options.warmup >= 0 || options.total >= 0) {
    return usageError("--warmup and --total go with --scheduler");
  }
  return 0;
}

/// Orders the named input files (`given`, from --input or --eval-input) by
/// the model's input names.
odt::Status
loadInputs(const std::vector<std::pair<std::string, std::string>> &given,
           const std::vector<std::string> &names,
           std::vector<odt::Tensor> &tensors, const char *flag = "--input") {
  std::map<std::string, std::string> files;
  for (const auto &[name, file] : given)
    if (!files.emplace(name, file).second)
      return odt::Status::error("input '" + name + "' is given twice");
  std::string expected;
  for (const std::string &name : names)
    expected += (expected.empty() ? "" : ", ") + name;
  for (const auto &[name, file] : files) {
    bool known = false;
    for (const std::string &n : names)
      known |= n == name;
    if (!known)
      return odt::Status::error("the model has no input '" + name +
                                "' (its inputs: " + expected + ")");
  }
  tensors.clear();
  for (const std::string &name : names) {
    auto it = files.find(name);
    if (it == files.end())
      return odt::Status::error("missing " + std::string(flag) + " " + name +
                                "=FILE.npy (the model's inputs: " + expected +
                                ")");
    odt::Result<odt::Tensor> tensor = odt::readNpy(it->second);
    if (!tensor)
      return tensor.getStatus().withContext("input '" + name + "'");
    tensors.push_back(tensor.take());
  }
  return odt::Status::ok();
}

/// Inputs that hold a dataset (rows along the first dim, the same count in
/// each), served in batches of `batchSize` rows: consecutive runs of rows,
/// the last one possibly shorter, starting over after the last. With a seed,
/// every pass visits the rows in a new order.
class Dataset {
public:
  static odt::Status create(const std::vector<std::string> &names,
                            std::vector<odt::Tensor> inputs, long batchSize,
                            const char *flag, Dataset &dataset) {
    int64_t rows = -1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].shape().empty())
        return odt::Status::error(std::string(flag) + ": input '" + names[i] +
                                  "' is a scalar, not a dataset of rows");
      int64_t count = inputs[i].shape()[0];
      if (rows >= 0 && count != rows)
        return odt::Status::error(
            std::string(flag) + ": input '" + names[i] + "' has " +
            std::to_string(count) + " rows, '" + names[0] + "' has " +
            std::to_string(rows) + " (every input needs the same number)");
      rows = count;
    }
    if (rows <= 0)
      return odt::Status::error(std::string(flag) +
                                ": the inputs have no rows");
    dataset.columns = std::move(inputs);
    dataset.rowCount = rows;
    dataset.batchSize = batchSize;
    dataset.order.resize(static_cast<size_t>(rows));
    for (int64_t row = 0; row < rows; ++row)
      dataset.order[static_cast<size_t>(row)] = row;
    return odt::Status::ok();
  }

  void shuffleWithSeed(uint64_t seed) {
    shuffled = true;
    random = seed;
    shuffleOrder();
  }

  int64_t batchesPerPass() const {
    return (rowCount + batchSize - 1) / batchSize;
  }

  /// The next batch; `rows` is how many rows it holds. Its tensors are
  /// reused from one batch to the next of the same size, so a step allocates
  /// nothing here but at the shorter last batch of a pass.
  std::vector<odt::Tensor> &next(int64_t &rows) {
    if (position == rowCount) {
      position = 0;
      if (shuffled)
        shuffleOrder();
    }
    rows = std::min<int64_t>(batchSize, rowCount - position);
    if (batch.empty() || batch[0].shape()[0] != rows) {
      batch.clear();
      for (const odt::Tensor &column : columns) {
        odt::Shape shape = column.shape();
        shape[0] = rows;
        batch.push_back(odt::Tensor::uninitialized(column.dtype(), shape));
      }
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      size_t rowBytes =
          columns[c].byteSize() / static_cast<size_t>(columns[c].shape()[0]);
      const char *from = static_cast<const char *>(columns[c].data());
      char *to = static_cast<char *>(batch[c].data());
      for (int64_t i = 0; i < rows; ++i)
        std::memcpy(to + i * rowBytes,
                    from + order[static_cast<size_t>(position + i)] * rowBytes,
                    rowBytes);
    }
    position += rows;
    return batch;
  }

  /// Back to the first batch of the current order.
  void rewind() { position = 0; }

private:
  /// splitmix64: a fixed generator, so that a seed means the same order on
  /// every platform (the standard library's distributions do not promise it).
  uint64_t nextRandom() {
    uint64_t z = (random += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Fisher-Yates.
  void shuffleOrder() {
    for (size_t i = order.size(); i > 1; --i) {
      size_t j = static_cast<size_t>(nextRandom() % i);
      std::swap(order[i - 1], order[j]);
    }
  }

  std::vector<odt::Tensor> columns, batch;
  std::vector<int64_t> order;
  int64_t rowCount = 0, batchSize = 1, position = 0;
  bool shuffled = false;
  uint64_t random = 0;
};

/// A float32 scalar output's value, for printing.
bool scalarValue(const odt::Tensor &tensor, float &value) {
  if (tensor.size() != 1 || tensor.dtype() != odt::DataType::Float)
    return false;
  value = tensor.data<float>()[0];
  return true;
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// The shortest decimal that reads back as the same float (the values are
/// float32; printing them as doubles would show noise digits).
std::string formatNumber(float value) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  char buffer[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtof(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

/// A float as a JSON value: JSON has no NaN or infinities, so they are null
/// (the text output says which).
std::string jsonNumber(float value) {
  return std::isfinite(value) ? formatNumber(value) : "null";
}

/// The eval graph's first output (a float scalar: the loss) over the whole
/// of `evalData`, its batches weighted by their rows.
odt::Status scoreEval(odt::Module &module, Dataset &evalData, float &meanLoss) {
  evalData.rewind();
  std::vector<odt::Tensor> outputs;
  double sum = 0;
  int64_t total = 0;
  for (int64_t b = 0; b < evalData.batchesPerPass(); ++b) {
    int64_t rows = 0;
    std::vector<odt::Tensor> &batch = evalData.next(rows);
    if (odt::Status status = module.evalStep(batch, outputs); !status)
      return status;
    float value;
    if (outputs.empty() || !scalarValue(outputs[0], value))
      return odt::Status::error(
          "the eval graph's first output is not a float scalar (a loss)");
    sum += double(value) * double(rows);
    total += rows;
  }
  meanLoss = float(sum / double(total));
  return odt::Status::ok();
}

int runTrain(const Options &options, odt::TrainingSession &session) {
  odt::Module &module = session.module();
  if (!module.hasTrainStep())
    return fail(odt::Status::error(
        "the compiled model '" + options.modelDir +
        "' has no training graph (compile it with --train)"));
  if (!session.hasOptimizer())
    return fail(odt::Status::error(
        "the compiled model '" + options.modelDir +
        "' has no optimizer step (compile it with --optimizer)"));
  odt::Status status;
  if (!std::isnan(options.learningRate) &&
      !(status = session.setLearningRate(options.learningRate)))
    return fail(status);
  if (!options.scheduler.empty()) {
    odt::LRSchedulerConfig config;
    config.kind = options.scheduler == "linear"   ? odt::kLinearLRSchedulerKind
                  : options.scheduler == "cosine" ? odt::kCosineWithWarmupLRSchedulerKind
                                                  : odt::kConstantWithWarmupLRSchedulerKind;
    config.warmupSteps = options.warmup;
    config.totalSteps = options.total < 0 ? 0 : options.total;
    config.initialLearningRate = *session.getLearningRate();
    if (!(status = session.registerScheduler(config)) ||
        !(status = session.schedulerStep()))
      return fail(status);
  }
  std::vector<odt::Tensor> inputs, outputs;
  if (!(status =
            loadInputs(options.inputs, module.trainingInputNames(), inputs)))
    return fail(status);
  Dataset data;
  if (options.batchSize) {
    if (!(status =
              Dataset::create(module.trainingInputNames(), std::move(inputs),
                              options.batchSize, "--batch-size", data)))
      return fail(status);
    if (options.shuffle)
      data.shuffleWithSeed(options.shuffleSeed);
  }
  // The held-out set, scored by the eval graph in batches of B (all at once
  // without --batch-size).
  Dataset evalData;
  bool evaluating = !options.evalInputs.empty();
  if (evaluating) {
    if (!module.hasEvalStep())
      return fail(odt::Status::error(
          "--eval-input: the compiled model '" + options.modelDir +
          "' has no eval graph (compile it with --eval)"));
    std::vector<odt::Tensor> evalInputs;
    if (!(status = loadInputs(options.evalInputs, module.evalInputNames(),
                              evalInputs, "--eval-input")))
      return fail(status);
    long evalBatch = options.batchSize;
    if (!evalBatch)
      evalBatch = evalInputs.empty() || evalInputs[0].shape().empty()
                      ? 1
                      : std::max<long>(1, evalInputs[0].shape()[0]);
    if (!(status =
              Dataset::create(module.evalInputNames(), std::move(evalInputs),
                              evalBatch, "--eval-input", evalData)))
      return fail(status);
  }
  long stepsPerEpoch = options.epochs ? data.batchesPerPass() : 0;
  if (options.epochs && options.epochs > LONG_MAX / stepsPerEpoch)
    return fail(odt::Status::error("--epochs " +
                                   std::to_string(options.epochs) + " of " +
                                   std::to_string(stepsPerEpoch) +
                                   " steps is more steps than can be counted"));
  long totalSteps =
      options.epochs ? options.epochs * stepsPerEpoch : options.steps;
  // Without --eval-every: at the end of each epoch, or after the last step.
  long evalEvery = options.evalEvery ? options.evalEvery
                   : options.epochs  ? stepsPerEpoch
                                     : totalSteps;
  bool progress = options.epochs && isatty(STDERR_FILENO);
  auto started = std::chrono::steady_clock::now();
  double epochLossSum = 0;
  int64_t epochRows = 0;
  bool epochLossFinite = true;
  bool scheduled = !options.scheduler.empty() ||
                   module.state().properties.count(odt::kSchedulerProperty);
  module.setStopOnNonFiniteLoss(options.stopOnNan);
  long nonFiniteSteps = 0;
  for (long i = 0; i < totalSteps; ++i) {
    float lr = *session.getLearningRate();
    int64_t batchRows = 1;
    std::vector<odt::Tensor> &stepInputs =
        options.batchSize ? data.next(batchRows) : inputs;
    if (!(status = session.trainStep(stepInputs, outputs))) {
      float loss = 0;
      bool nonFinite = options.stopOnNan && !outputs.empty() &&
                       scalarValue(outputs[0], loss) && !std::isfinite(loss);
      if (nonFinite)
        status = odt::Status::error(
            "step " + std::to_string(i + 1) + ": " + status.message() +
            (options.save.empty()
                 ? ""
                 : "; nothing was saved to '" + options.save + "'"));
      return fail(status);
    }
    if (!(status = session.optimizerStep()) ||
        (scheduled && !(status = session.schedulerStep())) ||
        !(status = session.lazyResetGrad()))
      return fail(status);
    int64_t step = module.state().findOptimizerGroup("group0")->step;
    float loss = NAN;
    bool haveLoss = !outputs.empty() && scalarValue(outputs[0], loss);
    if (haveLoss && !std::isfinite(loss) && nonFiniteSteps++ == 0)
      std::fprintf(stderr,
                   "odt-run: warning: step %lld: the loss is %s; the "
                   "parameters are probably no longer finite "
                   "(--stop-on-nan stops at the first such step)\n",
                   static_cast<long long>(step), formatNumber(loss).c_str());
    float evalLoss = NAN;
    bool evaluated = evaluating && (i + 1) % evalEvery == 0;
    if (evaluated && !(status = scoreEval(module, evalData, evalLoss)))
      return fail(status.withContext("--eval-input after step " +
                                     std::to_string(step)));
    long epoch = options.epochs ? i / stepsPerEpoch + 1 : 0;
    long inEpoch = options.epochs ? i % stepsPerEpoch + 1 : 0;
    bool epochEnd = options.epochs && inEpoch == stepsPerEpoch;
    if (!options.epochs) {
      if (options.json)
        std::printf("{\"step\": %lld, \"loss\": %s, \"lr\": %s}\n",
                    static_cast<long long>(step),
                    haveLoss ? jsonNumber(loss).c_str() : "null",
                    jsonNumber(lr).c_str());
      else
        std::printf("step %lld  loss %s  lr %s\n", static_cast<long long>(step),
                    haveLoss ? formatNumber(loss).c_str() : "-",
                    formatNumber(lr).c_str());
    }
    // An evaluation at an epoch's end goes on the epoch's line.
    if (evaluated && !epochEnd) {
      if (progress)
        std::fputs("\r\033[K", stderr);
      if (options.json)
        std::printf("{\"eval_step\": %lld, \"loss\": %s}\n",
                    static_cast<long long>(step), jsonNumber(evalLoss).c_str());
      else
        std::printf("eval after step %lld  loss %s\n",
                    static_cast<long long>(step),
                    formatNumber(evalLoss).c_str());
    }
    if (!options.epochs) {
      std::fflush(stdout);
      continue;
    }
    // Epochs: the mean loss over the epoch's rows, one line at its end.
    if (haveLoss && std::isfinite(loss))
      epochLossSum += double(loss) * double(batchRows);
    else
      epochLossFinite = false;
    epochRows += batchRows;
    if (progress)
      std::fprintf(stderr, "\rodt-run: epoch %ld/%ld  step %ld/%ld", epoch,
                   options.epochs, inEpoch, stepsPerEpoch);
    if (!epochEnd)
      continue;
    if (progress)
      std::fputs("\r\033[K", stderr);
    float meanLoss =
        epochLossFinite ? float(epochLossSum / double(epochRows)) : NAN;
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
    if (options.json) {
      std::printf("{\"epoch\": %ld, \"epochs\": %ld, \"steps\": %lld, "
                  "\"loss\": %s, \"lr\": %s",
                  epoch, options.epochs, static_cast<long long>(step),
                  jsonNumber(meanLoss).c_str(), jsonNumber(lr).c_str());
      if (evaluated)
        std::printf(", \"eval_loss\": %s", jsonNumber(evalLoss).c_str());
      std::printf(", \"seconds\": %.3f}\n", seconds);
    } else {
      std::printf("epoch %ld/%ld  loss %s  lr %s", epoch, options.epochs,
                  formatNumber(meanLoss).c_str(), formatNumber(lr).c_str());
      if (evaluated)
        std::printf("  eval loss %s", formatNumber(evalLoss).c_str());
      std::printf("  steps %lld  %.2f s\n", static_cast<long long>(step),
                  seconds);
    }
    std::fflush(stdout);
    epochLossSum = 0;
    epochRows = 0;
    epochLossFinite = true;
  }
  if (nonFiniteSteps)
    std::fprintf(stderr,
                 "odt-run: warning: %ld of %ld steps had a non-finite "
                 "loss%s\n",
                 nonFiniteSteps, totalSteps,
                 options.save.empty() ? ""
                                      : "; the checkpoint saved holds their "
                                        "parameters");
  if (!options.save.empty() &&
      !(status = odt::saveCheckpoint(module.state(), options.save,
                                     /*includeOptimizerState=*/true)))
    return fail(status);
  return 0;
}

int runEval(const Options &options, odt::Module &module) {
  if (!module.hasEvalStep())
    return fail(odt::Status::error(
        "the compiled model '" + options.modelDir +
        "' has no eval graph (compile it with --eval)"));
  std::vector<odt::Tensor> inputs, outputs;
  odt::Status status =
      loadInputs(options.inputs, module.evalInputNames(), inputs);
  if (!status)
    return fail(status);
  std::vector<std::string> names = module.evalOutputNames();
  // Check --output names before running.
  for (const auto &[name, file] : options.outputs) {
    bool known = false;
    for (const std::string &n : names)
      known |= n == name;
    if (!known)
      return fail(odt::Status::error("the eval model has no output '" + name +
                                     "'"));
  }
  if (!(status = module.evalStep(inputs, outputs)))
    return fail(status);
  for (const auto &[name, file] : options.outputs)
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name && !(status = odt::writeNpy(file, outputs[i])))
        return fail(status);
  std::string line = options.json ? "{\"outputs\": {" : "";
  for (size_t i = 0; i < names.size(); ++i) {
    float value;
    std::string shown =
        scalarValue(outputs[i], value)
            ? (options.json ? jsonNumber(value) : formatNumber(value))
            : (options.json ? jsonString(odt::formatShape(outputs[i].shape()))
                            : odt::formatShape(outputs[i].shape()));
    if (options.json)
      line += (i ? ", " : "") + jsonString(names[i]) + ": " + shown;
    else
      line += (i ? "  " : "") + names[i] + " " + shown;
  }
  std::printf("%s%s\n", line.c_str(), options.json ? "}}" : "");
  return 0;
}

/// Median, min and max of `samples` (seconds), sorted in place.
struct Timing {
  double median, min, max;
};
Timing summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  double median = n % 2 ? samples[n / 2]
                        : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return {median, samples.front(), samples.back()};
}

/// Runs `step` warmupRuns times, then times it `repetitions` times.
odt::Status timeRuns(const Options &options,
                     const std::function<odt::Status()> &step, Timing &timing) {
  for (long i = 0; i < options.warmupRuns; ++i)
    if (odt::Status status = step(); !status)
      return status;
  std::vector<double> samples;
  for (long i = 0; i < options.repetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (odt::Status status = step(); !status)
      return status;
    samples.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  timing = summarize(samples);
  return odt::Status::ok();
}

/// Resident memory of this process now, in MiB (0 if unknown).
double residentMiB() {
  long pages = 0, resident = 0;
  FILE *statm = std::fopen("/proc/self/statm", "r");
  if (!statm)
    return 0;
  if (std::fscanf(statm, "%ld %ld", &pages, &resident) != 2)
    resident = 0;
  std::fclose(statm);
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

/// The most this process has had resident so far, in MiB: VmHWM, which
/// starts afresh at exec (getrusage's ru_maxrss keeps the peak of the
/// process that forked us, a Python driver's for instance).
double peakResidentMiB() {
  FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmHWM: %lf kB", &kib) == 1)
      break;
  std::fclose(status);
  return kib / 1024.0;
}

/// Resident memory before the model and checkpoint were loaded: a bench's
/// memory figure is the peak above it.
double startResidentMiB = 0;

void printTiming(const Options &options, const char *what,
                 const Timing &timing) {
  double peak = peakResidentMiB();
  if (options.json)
    std::printf("{\"bench\": \"%s\", \"median_ms\": %.6g, \"min_ms\": %.6g, "
                "\"max_ms\": %.6g, \"repetitions\": %ld, \"peak_rss_mib\": "
                "%.1f, \"start_rss_mib\": %.1f}\n",
                what, timing.median * 1e3, timing.min * 1e3, timing.max * 1e3,
                options.repetitions, peak, startResidentMiB);
  else
    std::printf("%-14s median %.4g ms  min %.4g ms  max %.4g ms  (%ld runs)  "
                "peak RSS %.1f MiB (%.1f above the start)\n",
                what, timing.median * 1e3, timing.min * 1e3, timing.max * 1e3,
                options.repetitions, peak, peak - startResidentMiB);
  std::fflush(stdout);
}

int runBench(const Options &options, odt::TrainingSession &session) {
  odt::Module &module = session.module();
  odt::Status status;
  bool any = false;
  if (module.hasTrainStep() && session.hasOptimizer()) {
    std::vector<odt::Tensor> inputs, outputs;
    if (!(status =
              loadInputs(options.inputs, module.trainingInputNames(), inputs)))
      return fail(status);
    Timing timing;
    // Each phase's own time too, so a user sees where a step goes: the
    // optimizer pass is memory-bound and can dominate at small batches.
    std::vector<double> trainSeconds, optimizerSeconds;
    // Reserved: no reallocation inside a timed step.
    for (std::vector<double> *phase : {&trainSeconds, &optimizerSeconds})
      phase->reserve(options.warmupRuns + options.repetitions);
    auto step = [&]() -> odt::Status {
      using Clock = std::chrono::steady_clock;
      odt::Status s;
      auto start = Clock::now();
      if (!(s = session.trainStep(inputs, outputs)))
        return s;
      auto trained = Clock::now();
      if (!(s = session.optimizerStep()))
        return s;
      auto optimized = Clock::now();
      trainSeconds.push_back(
          std::chrono::duration<double>(trained - start).count());
      optimizerSeconds.push_back(
          std::chrono::duration<double>(optimized - trained).count());
      return session.lazyResetGrad();
    };
    if (!(status = timeRuns(options, step, timing)))
      return fail(status);
    // The phases of the warm-up runs are not timed runs.
    for (std::vector<double> *phase : {&trainSeconds, &optimizerSeconds})
      phase->erase(phase->begin(), phase->begin() + options.warmupRuns);
    printTiming(options, "train", timing);
    printTiming(options, "train-step", summarize(trainSeconds));
    printTiming(options, "optimizer-step", summarize(optimizerSeconds));
    any = true;
  }
  if (module.hasEvalStep()) {
    std::vector<odt::Tensor> inputs, outputs;
    if (!(status = loadInputs(options.inputs, module.evalInputNames(), inputs)))
      return fail(status);
    Timing timing;
    if (!(status = timeRuns(
              options, [&] { return module.evalStep(inputs, outputs); },
              timing)))
      return fail(status);
    printTiming(options, "eval", timing);
    any = true;
  }
  if (!any)
    return fail(odt::Status::error("the compiled model '" + options.modelDir +
                                   "' has neither a training step with an "
                                   "optimizer nor an eval step"));
  return 0;
}

/// A dim list as text ("[N, 784]") or JSON ("[\"N\", 784]").
std::string formatDims(const std::vector<odt::DimSpec> &dims, bool json) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += i ? ", " : "";
    if (dims[i].size >= 0)
      out += std::to_string(dims[i].size);
    else
      out += json ? jsonString(dims[i].symbol) : dims[i].symbol;
  }
  return out + "]";
}

const char *optimizerName(odt::OptimizerKind kind) {
  switch (kind) {
  case odt::OptimizerKind::AdamW:
    return "AdamW";
  case odt::OptimizerKind::SGD:
    return "SGD";
  case odt::OptimizerKind::None:
    break;
  }
  return "none";
}

/// odt-run info: what a compiled model takes and gives, without running it.
int runInfo(const Options &options, const odt::CompiledModel &model) {
  struct Entry {
    odt::EntryKind kind;
    const char *name;
  };
  const Entry entries[] = {{odt::EntryKind::Train, "train"},
                           {odt::EntryKind::Eval, "eval"},
                           {odt::EntryKind::Optimizer, "optimizer"}};
  std::string out;
  if (options.json)
    out = "{\"name\": " + jsonString(model.name()) + ", \"entry_points\": {";
  else
    out = "model " + model.name() + " (" + options.modelDir + ")\n";
  bool firstEntry = true;
  for (const Entry &entry : entries) {
    const odt::EntryPointSpec *spec = model.entryPoint(entry.kind);
    if (!spec)
      continue;
    std::string inputs, outputs;
    for (const odt::ArgumentSpec &arg : spec->arguments) {
      bool input = arg.role == odt::ArgumentRole::UserInput;
      if (!input && arg.role != odt::ArgumentRole::UserOutput)
        continue;
      std::string &list = input ? inputs : outputs;
      if (options.json)
        list += std::string(list.empty() ? "" : ", ") +
                "{\"name\": " + jsonString(arg.name) + ", \"dtype\": \"" +
                odt::dataTypeName(arg.dtype) +
                "\", \"shape\": " + formatDims(arg.dims, true) + "}";
      else
        list += "    " + std::string(input ? "input  " : "output ") + arg.name +
                "  " + odt::dataTypeName(arg.dtype) + " " +
                formatDims(arg.dims, false) + "\n";
    }
    if (options.json)
      out += std::string(firstEntry ? "" : ", ") + "\"" + entry.name +
             "\": {\"inputs\": [" + inputs + "], \"outputs\": [" + outputs +
             "]}";
    else if (!inputs.empty() || !outputs.empty())
      out += std::string(entry.name) + ":\n" + inputs + outputs;
    firstEntry = false;
  }
  const odt::OptimizerSpec &optimizer = model.optimizer();
  char hyper[256] = "";
  if (optimizer.kind == odt::OptimizerKind::AdamW)
    std::snprintf(hyper, sizeof hyper,
                  "alpha %s, beta %s, epsilon %s, weight decay %s, "
                  "bias correction %s, adam mode %d",
                  formatNumber(optimizer.alpha).c_str(),
                  formatNumber(optimizer.beta).c_str(),
                  formatNumber(optimizer.epsilon).c_str(),
                  formatNumber(optimizer.weightDecay).c_str(),
                  optimizer.correctBias ? "on" : "off", optimizer.adamMode);
  int64_t trainable = 0, frozen = 0;
  std::string params;
  for (const odt::ParameterSpec &param : model.parameters()) {
    (param.trainable ? trainable : frozen) += odt::numElements(param.shape);
    if (options.json)
      params += std::string(params.empty() ? "" : ", ") +
                "{\"name\": " + jsonString(param.name) + ", \"dtype\": \"" +
                odt::dataTypeName(param.dtype) +
                "\", \"shape\": " + odt::formatShape(param.shape) +
                ", \"trainable\": " + (param.trainable ? "true" : "false") +
                "}";
    else
      params += "    " + param.name + "  " + odt::dataTypeName(param.dtype) +
                " " + odt::formatShape(param.shape) +
                (param.trainable ? "" : "  (frozen)") + "\n";
  }
  if (options.json) {
    out += std::string("}, \"optimizer\": {\"kind\": \"") +
           optimizerName(optimizer.kind) + "\"";
    if (optimizer.kind == odt::OptimizerKind::AdamW)
      out +=
          ", \"alpha\": " + jsonNumber(optimizer.alpha) +
          ", \"beta\": " + jsonNumber(optimizer.beta) +
          ", \"epsilon\": " + jsonNumber(optimizer.epsilon) +
          ", \"weight_decay\": " + jsonNumber(optimizer.weightDecay) +
          ", \"correct_bias\": " + (optimizer.correctBias ? "true" : "false") +
          ", \"adam_mode\": " + std::to_string(optimizer.adamMode);
    out += "}, \"parameters\": [" + params +
           "], \"trainable_elements\": " + std::to_string(trainable) +
           ", \"frozen_elements\": " + std::to_string(frozen) + "}\n";
  } else {
    out += std::string("optimizer: ") + optimizerName(optimizer.kind) +
           (*hyper ? std::string(" (") + hyper + ")" : "") + "\n";
    out += "parameters: " + std::to_string(model.parameters().size()) + " (" +
           std::to_string(trainable) + " trainable elements, " +
           std::to_string(frozen) + " frozen)\n" + params;
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  startResidentMiB = residentMiB();
  Options options;
  if (int code = parseOptions(argc, argv, options))
    return code < 0 ? 0 : code;
  odt::Result<std::shared_ptr<odt::CompiledModel>> model =
      odt::CompiledModel::load(options.modelDir);
  if (!model)
    return fail(model.getStatus());
  if (options.command == "info")
    return runInfo(options, **model);
  // eval without --checkpoint: the checkpoint odt-compile wrote beside a
  // plain forward model, or no parameters at all.
  std::string checkpoint = options.checkpoint;
  struct stat info;
  if (checkpoint.empty() &&
      stat((options.modelDir + "/checkpoint").c_str(), &info) == 0)
    checkpoint = options.modelDir + "/checkpoint";
  odt::Result<odt::CheckpointState> state =
      checkpoint.empty() ? odt::Result<odt::CheckpointState>(odt::CheckpointState())
                         : odt::loadCheckpoint(checkpoint);
  if (!state)
    return fail(state.getStatus());
  if (options.command == "train") {
    odt::OptimizerGroupState *group = state->findOptimizerGroup("group0");
    if (options.resume && !group)
      return fail(odt::Status::error(
          "--resume: the checkpoint '" + options.checkpoint +
          "' holds no optimizer state (save one with --save)"));
    if (!options.resume) {
      // A fresh run on the checkpoint's parameters: no moments, step 0, and
      // none of odt's saved learning rate or scheduler.
      state->optimizerGroups.clear();
      for (auto it = state->properties.begin(); it != state->properties.end();)
        it = it->first.rfind("odt.", 0) == 0 ? state->properties.erase(it)
                                             : std::next(it);
    }
  }
  odt::Result<std::unique_ptr<odt::TrainingSession>> session =
      odt::TrainingSession::create(*state, *model, options.device);
  if (!session)
    return fail(session.getStatus());
  if (odt::Status threads =
          (*session)->module().setThreads(static_cast<int>(options.threads));
      !threads)
    return fail(threads);
  (*session)->module().setFlushDenormals(!options.keepDenormals);
  if (options.command == "bench")
    return runBench(options, **session);
  return options.command == "train" ? runTrain(options, **session)
                                    : runEval(options, (*session)->module());
}
