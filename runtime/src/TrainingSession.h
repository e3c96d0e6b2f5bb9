// TrainingSession: a Module, its Optimizer and learning-rate scheduler over
// one CheckpointState: what ORT's C API calls a training session.

#ifndef ODT_RUNTIME_TRAININGSESSION_H
#define ODT_RUNTIME_TRAININGSESSION_H

#include "CudaDriver.h"
#include "LRScheduler.h"
#include "Module.h"
#include "Optimizer.h"

#include <memory>
#include <string>
#include <vector>

namespace odt {

/// Properties holding a registered scheduler, so that a resumed session
/// continues the same schedule (the position is the optimizer's step count).
inline constexpr const char *kSchedulerProperty = "odt.lr_scheduler";

class TrainingSession {
public:
  /// The state must outlive the session. A scheduler recorded in the state's
  /// properties is restored. `device` is where the steps run: the CPU, or a
  /// CUDA device, which is opened (its driver loaded) only then.
  static Result<std::unique_ptr<TrainingSession>>
  create(CheckpointState &state, std::shared_ptr<CompiledModel> model,
         const cuda::DeviceSpec &device = cuda::DeviceSpec());

  Module &module() { return *trainingModule; }
  const Module &module() const { return *trainingModule; }
  bool hasOptimizer() const { return optimizer != nullptr; }

  Status trainStep(std::vector<Tensor> &inputs, std::vector<Tensor> &outputs) {
    return trainingModule->trainStep(inputs, outputs);
  }
  Status evalStep(std::vector<Tensor> &inputs, std::vector<Tensor> &outputs) {
    return trainingModule->evalStep(inputs, outputs);
  }
  Status lazyResetGrad() { return trainingModule->lazyResetGrad(); }
  Status optimizerStep();
  Status setLearningRate(float learningRate);
  Result<float> getLearningRate() const;

  /// Registers (or replaces) the scheduler and records it in the state; the
  /// group's initial learning rate becomes the scheduler's.
  Status registerScheduler(const LRSchedulerConfig &config);
  Status schedulerStep();

  Status exportModelForInferencing(const std::string &path,
                                   const std::vector<std::string> &outputNames);

private:
  TrainingSession() = default;
  Status requireOptimizer(const char *what) const;

  CheckpointState *state = nullptr;
  std::unique_ptr<Module> trainingModule;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<LRScheduler> scheduler;
};

} // namespace odt

#endif // ODT_RUNTIME_TRAININGSESSION_H
