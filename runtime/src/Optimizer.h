// Optimizer: runs the compiled optimizer step over the trainable parameters
// of a Module, with ORT's step-counter semantics (ORT-FACTS.md §2): the step
// fed to the graph is state.step + 1, and state.step grows only when the
// graph reports that it updated the weights. Gradients are never reset here.

#ifndef ODT_RUNTIME_OPTIMIZER_H
#define ODT_RUNTIME_OPTIMIZER_H

#include "LRScheduler.h"
#include "Module.h"

namespace odt {

/// The learning rate when the checkpoint holds no optimizer state (ORT's).
inline constexpr float kDefaultLearningRate = 0.001f;
/// Property holding the current learning rate, so that it survives a save
/// and load (ORT does not keep it; odt does).
inline constexpr const char *kLearningRateProperty = "odt.learning_rate";

class Optimizer final : public LearningRateTarget {
public:
  /// Uses (or creates) the optimizer group "group0" of the module's state:
  /// its step count, initial learning rate and the moments "momentum0" and
  /// "momentum1" of every trainable parameter (zero when absent). The
  /// learning rate is the state's odt.learning_rate property if present,
  /// else 0.001 (ORT's default, which ORT also uses after a resume).
  static Result<std::unique_ptr<Optimizer>> create(Module &module);
  /// Waits for its step if one is still running on a device (the step
  /// delivers into this object).
  ~Optimizer() override;

  Status step();
  /// Sets the learning rate of the next steps (also kept in the state's
  /// odt.learning_rate property).
  Status setLearningRate(float learningRate) override;
  float getLearningRate() const override { return learningRate; }
  /// Number of updates applied so far (the group's step).
  int64_t stepCount() const override;

private:
  Optimizer() = default;
  Status bindArguments();

  Module *module = nullptr;
  OptimizerGroupState *group = nullptr;
  float learningRate = kDefaultLearningRate;
  EntryCall call;
  SymbolBindings bindings;
  Tensor learningRateTensor; // float[1]
  Tensor stepTensor;         // int64[1]
  Tensor updatedFlag;        // bool[1]
};

} // namespace odt

#endif // ODT_RUNTIME_OPTIMIZER_H
