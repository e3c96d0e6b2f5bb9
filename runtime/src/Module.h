// Module: runs the compiled train and eval steps over the parameters of a
// CheckpointState it does not own (ORT's training Module, seeds/000).

#ifndef ODT_RUNTIME_MODULE_H
#define ODT_RUNTIME_MODULE_H

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "DeviceSteps.h"
#include "ThreadPool.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace odt {

class Module {
public:
  /// Binds `model` to the parameters of `state` (which must outlive the
  /// Module). Fails if a parameter the model uses is missing from the state
  /// or has another dtype, shape or trainability. Allocates the gradient
  /// buffers of trainable parameters. With `device` (a GPU build's steps on
  /// a CUDA device), the steps run there and the state lives there too; the
  /// state must then have no other session.
  static Result<std::unique_ptr<Module>>
  create(std::shared_ptr<CompiledModel> model, CheckpointState *state,
         std::unique_ptr<cuda::DeviceSteps> device = nullptr);
  ~Module();
  /// Whether a new session may use `state`: a session on a device needs it
  /// to itself, and no session may join one that is on a device.
  static Status checkStateAvailable(const CheckpointState &state,
                                    bool onDevice);
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The steps on a device, or null when they run on the CPU.
  cuda::DeviceSteps *deviceSteps() const { return device.get(); }

  /// Forward and backward: `inputs` in the training model's user-input order.
  /// Gradients overwrite the buffers after construction or LazyResetGrad,
  /// and accumulate otherwise. `outputs` are resized/allocated as needed
  /// (reused across calls when their shapes match); an output that is a view
  /// of caller memory must already have the right dtype and shape.
  Status trainStep(std::vector<Tensor> &inputs, std::vector<Tensor> &outputs);
  /// Forward only, on the eval model.
  Status evalStep(std::vector<Tensor> &inputs, std::vector<Tensor> &outputs);
  /// The next TrainStep overwrites the gradients instead of adding to them.
  Status lazyResetGrad();
  /// Whether a TrainStep has run (and so written gradients) on this module.
  bool hasComputedGradients() const { return computedGradients; }

  /// Writes an ONNX inference model: the eval graph pruned to `outputNames`,
  /// the parameters as initializers holding their current values.
  Status
  exportModelForInferencing(const std::string &path,
                            const std::vector<std::string> &outputNames) const;

  bool hasTrainStep() const { return train != nullptr; }
  bool hasEvalStep() const { return eval != nullptr; }

  /// Parameters in training-graph input order.
  const std::vector<std::shared_ptr<Parameter>> &parameters() const {
    return params;
  }
  std::map<std::string, std::shared_ptr<Parameter>> namedParameters() const;
  std::shared_ptr<Parameter> findParameter(const std::string &name) const;

  /// Number of elements of all parameters (trainable ones only if asked),
  /// the length CopyParametersToBuffer and CopyBufferToParameters need.
  int64_t getParametersSize(bool trainableOnly = true) const;
  /// Copies the parameters, in training-graph input order, into one flat
  /// buffer of exactly getParametersSize(trainableOnly) elements. All the
  /// parameters copied must share one dtype, the buffer's.
  Status copyParametersToBuffer(Tensor &buffer,
                                bool trainableOnly = true) const;
  /// The reverse. On a nominal state, allocates the parameters it fills;
  /// with trainableOnly = false that completes the state.
  Status copyBufferToParameters(const Tensor &buffer,
                                bool trainableOnly = true);

  std::vector<std::string> trainingInputNames() const;
  std::vector<std::string> trainingOutputNames() const;
  std::vector<std::string> evalInputNames() const;
  std::vector<std::string> evalOutputNames() const;

  /// Threads for the generated code's parallel loops in every step of this
  /// module and its optimizer (0: one per core, the default). The pool's
  /// threads are created here, never inside a step.
  Status setThreads(int count);
  int threadCount() const { return threads; }
  ThreadPool *threadPool() const { return pool.get(); }
  /// How many times steps have filled kept panels so far (each cache is
  /// filled at most once per change of its parameter).
  int64_t panelFills() const { return panelFillCount; }
  /// Whether TrainStep, EvalStep and OptimizerStep flush denormal floats to
  /// zero (the default; FloatMode.h says why) or keep IEEE denormals.
  void setFlushDenormals(bool flush) { flushDenormals = flush; }
  bool flushesDenormals() const { return flushDenormals; }
  /// Whether TrainStep fails when its loss (the first output, a float
  /// scalar) is NaN or infinite. The step's gradients are accumulated all
  /// the same; the optimizer has not run, so the parameters are still the
  /// last finite ones (LazyResetGrad discards the bad gradients).
  void setStopOnNonFiniteLoss(bool stop) { stopOnNonFiniteLoss = stop; }
  bool stopsOnNonFiniteLoss() const { return stopOnNonFiniteLoss; }

  /// The Dropout masks' generator state: the seed and the number of steps
  /// drawn so far (the next step draws with counter + 1).
  int64_t randomSeed() const { return seed; }
  int64_t randomCounter() const { return counter; }

  const CompiledModel &model() const { return *compiled; }
  CheckpointState &state() { return *checkpoint; }

private:
  Module() = default;
  /// Panels of a parameter's matrix products in one layout (entry arguments
  /// with role packed_panels), kept between steps and shared by the train
  /// and eval steps that name the same layout. Filled by a step when it
  /// finds its stale flag set; valid while the parameter's version is the
  /// one they were filled at.
  struct PanelCache {
    Tensor panels;
    uint64_t filledVersion = ~uint64_t(0); // never filled
  };
  struct PanelUse {
    size_t panelsArg = 0, staleArg = 0, param = 0;
    PanelCache *cache = nullptr;
    Tensor stale;              // bool[1], bound to staleArg
    uint64_t boundVersion = 0; // the parameter's version when bound
    bool boundStale = false;
  };
  struct Step {
    EntryKind kind = EntryKind::Train;
    EntryCall call;
    std::vector<PanelUse> panels;
    std::vector<size_t> inputArgs;  // argument index of each user input
    std::vector<size_t> outputArgs; // argument index of each user output
    SymbolBindings bindings;
    Shape outputShape; // reused by every call
  };
  Status bindStateArguments(Step &step);
  /// The random state for the step about to run (the next counter value),
  /// and, once it ran, the counter advanced.
  void prepareRandomState();
  void commitRandomState();
  Status addPanelUse(Step &step, const EntryPointSpec &entry, size_t panelsArg);
  /// An input in device memory (Tensor::onDevice) is taken only by a
  /// session on that device, and only where the host needs none of its
  /// values (no value checks, no shape function).
  Status checkDeviceInput(const char *what, const EntryPointSpec &entry,
                          const ArgumentSpec &argument,
                          const Tensor &input) const;
  Status run(Step &step, const char *what, std::vector<Tensor> &inputs,
             std::vector<Tensor> &outputs);
  static std::vector<std::string> argumentNames(const Step *step, bool outputs);

  std::shared_ptr<CompiledModel> compiled;
  CheckpointState *checkpoint = nullptr;
  std::vector<std::shared_ptr<Parameter>> params;
  std::unique_ptr<Step> train, eval;
  Tensor lazyResetFlag; // bool[1]
  bool computedGradients = false;
  std::map<std::string, PanelCache> panelCaches;
  int64_t panelFillCount = 0;
  int threads = 0;
  bool flushDenormals = true;
  bool stopOnNonFiniteLoss = false;
  // Dropout masks: int64[2] {seed, counter} for the steps that take it,
  // the counter advanced once per such step; seedGeneration is the
  // setSeed() call the seed came from.
  Tensor randomState;
  int64_t seed = 0, counter = 0;
  uint64_t seedGeneration = 0;
  bool randomStatePending = false;
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<cuda::DeviceSteps> device;
};

/// ORT's SetSeed: the seed of odt's random number generation (Dropout
/// masks), for every session. A session takes it at its next step and
/// restarts its step counter; a session created from a checkpoint that
/// records a seed and counter (properties odt.random_seed, odt.random_step)
/// continues from them unless setSeed is called after its creation.
/// Without any, the seed is 0: runs are reproducible.
void setSeed(int64_t seed);
int64_t getSeed();

} // namespace odt

#endif // ODT_RUNTIME_MODULE_H
