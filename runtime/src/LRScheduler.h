// Learning-rate schedulers. A scheduler sets the learning rate of a
// LearningRateTarget (odt::Optimizer) from the target's optimizer step count:
//   lr = initialLearningRate · factor(stepCount).
// The position in the schedule is the step count alone, so a scheduler holds
// no state of its own beyond its parameters (config()); saving the optimizer's
// step and the config is enough to resume a schedule from a checkpoint.
//
// LinearLRScheduler reproduces ONNX Runtime's LinearLRScheduler exactly
// (orttraining/training_api/lr_scheduler.{h,cc}); ORT-FACTS.md §2:
//  * the factor is computed in float, as ORT does, and multiplied in float;
//  * creating a scheduler applies the schedule at once (ORT's constructor
//    calls Step()), so right after create() the learning rate is
//    initialLearningRate · factor(stepCount): 0 for a fresh optimizer with
//    warm-up, factor(s) for one restored at step s.
//  * ORT's C API RegisterLinearLRScheduler (TrainingSession::RegisterScheduler)
//    builds the scheduler and then calls Optimizer::SetInitialLearningRate,
//    which also sets the current learning rate to the initial one: through the
//    C API the learning rate equals initialLearningRate until the first
//    SchedulerStep. A C API layer that wants that behaviour must call
//    target.setLearningRate(scheduler->initialLearningRate()) after create().
//  * warmupSteps may exceed totalSteps (ORT tests warm-up 200 of 100 steps).
//  * arguments are (warmupSteps, totalSteps), in that order: ORT's Python
//    binding takes them swapped; odt does not.
//
// CosineWithWarmupLRScheduler and ConstantWithWarmupLRScheduler follow
// Hugging Face transformers' get_cosine_schedule_with_warmup and
// get_constant_schedule_with_warmup; their factors are computed in double.

#ifndef ODT_RUNTIME_LRSCHEDULER_H
#define ODT_RUNTIME_LRSCHEDULER_H

#include "Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace odt {

/// What a scheduler drives; odt::Optimizer implements it.
class LearningRateTarget {
public:
  virtual ~LearningRateTarget() = default;
  /// Optimizer updates applied so far.
  virtual int64_t stepCount() const = 0;
  virtual Status setLearningRate(float lr) = 0;
  virtual float getLearningRate() const = 0;
};

inline constexpr const char *kLinearLRSchedulerKind = "linear";
inline constexpr const char *kCosineWithWarmupLRSchedulerKind = "cosine_with_warmup";
inline constexpr const char *kConstantWithWarmupLRSchedulerKind = "constant_with_warmup";

/// A scheduler's kind and parameters: what a checkpoint records to rebuild
/// it. Fields a kind does not use are 0 in config() and ignored by
/// createLRScheduler() (totalSteps for constant_with_warmup, numCycles for
/// linear and constant_with_warmup).
struct LRSchedulerConfig {
  std::string kind;
  int64_t warmupSteps = 0;
  int64_t totalSteps = 0;
  float initialLearningRate = 0.0f;
  double numCycles = 0.5;
};

class LRScheduler {
public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler &) = delete;
  LRScheduler &operator=(const LRScheduler &) = delete;

  /// Sets the target's learning rate to learningRateAt(target.stepCount())
  /// (ORT's SchedulerStep). Fails when the step count is negative or the
  /// target refuses the value.
  virtual Status step();

  /// The learning rate the schedule gives after `stepCount` optimizer updates
  /// (stepCount >= 0). Pure; does not touch the target.
  virtual float learningRateAt(int64_t stepCount) const = 0;

  /// "linear", "cosine_with_warmup" or "constant_with_warmup".
  virtual std::string kind() const = 0;
  virtual LRSchedulerConfig config() const = 0;

  float initialLearningRate() const { return initialLR; }
  LearningRateTarget &target() const { return *scheduled; }

protected:
  LRScheduler(LearningRateTarget &target, float initialLearningRate)
      : scheduled(&target), initialLR(initialLearningRate) {}

private:
  LearningRateTarget *scheduled;
  float initialLR;
};

/// ORT's LinearLRScheduler: f(s) = s / max(1, warmup) while s < warmup, then
/// max(0, (total − s) / max(1, total − warmup)).
class LinearLRScheduler final : public LRScheduler {
public:
  /// warmupSteps >= 0, totalSteps >= 0, initialLearningRate finite and >= 0.
  /// Applies the schedule once (see the file comment). The target must
  /// outlive the scheduler.
  static Result<std::unique_ptr<LinearLRScheduler>>
  create(LearningRateTarget &target, int64_t warmupSteps, int64_t totalSteps,
         float initialLearningRate);

  float learningRateAt(int64_t stepCount) const override;
  std::string kind() const override { return kLinearLRSchedulerKind; }
  LRSchedulerConfig config() const override;

  int64_t warmupSteps() const { return warmup; }
  int64_t totalSteps() const { return total; }

private:
  LinearLRScheduler(LearningRateTarget &target, int64_t warmupSteps, int64_t totalSteps,
                    float initialLearningRate)
      : LRScheduler(target, initialLearningRate), warmup(warmupSteps), total(totalSteps) {}

  int64_t warmup;
  int64_t total;
};

/// Hugging Face's cosine schedule with warm-up: f(s) = s / max(1, warmup)
/// while s < warmup, then with p = (s − warmup) / max(1, total − warmup):
/// max(0, ½·(1 + cos(π · numCycles · 2 · p))). With numCycles = 0.5 the rate
/// falls from initialLearningRate at s = warmup to 0 at s = total. Like
/// Hugging Face, the formula is not clamped past totalSteps (the cosine
/// continues).
class CosineWithWarmupLRScheduler final : public LRScheduler {
public:
  /// 0 <= warmupSteps <= totalSteps, initialLearningRate finite and >= 0,
  /// numCycles finite and > 0. Applies the schedule once.
  static Result<std::unique_ptr<CosineWithWarmupLRScheduler>>
  create(LearningRateTarget &target, int64_t warmupSteps, int64_t totalSteps,
         float initialLearningRate, double numCycles = 0.5);

  float learningRateAt(int64_t stepCount) const override;
  std::string kind() const override { return kCosineWithWarmupLRSchedulerKind; }
  LRSchedulerConfig config() const override;

  int64_t warmupSteps() const { return warmup; }
  int64_t totalSteps() const { return total; }
  double numCycles() const { return cycles; }

private:
  CosineWithWarmupLRScheduler(LearningRateTarget &target, int64_t warmupSteps,
                              int64_t totalSteps, float initialLearningRate, double numCycles)
      : LRScheduler(target, initialLearningRate), warmup(warmupSteps), total(totalSteps),
        cycles(numCycles) {}

  int64_t warmup;
  int64_t total;
  double cycles;
};

/// Hugging Face's constant schedule with warm-up: f(s) = s / max(1, warmup)
/// while s < warmup, then 1.
class ConstantWithWarmupLRScheduler final : public LRScheduler {
public:
  /// warmupSteps >= 0, initialLearningRate finite and >= 0. Applies the
  /// schedule once.
  static Result<std::unique_ptr<ConstantWithWarmupLRScheduler>>
  create(LearningRateTarget &target, int64_t warmupSteps, float initialLearningRate);

  float learningRateAt(int64_t stepCount) const override;
  std::string kind() const override { return kConstantWithWarmupLRSchedulerKind; }
  LRSchedulerConfig config() const override;

  int64_t warmupSteps() const { return warmup; }

private:
  ConstantWithWarmupLRScheduler(LearningRateTarget &target, int64_t warmupSteps,
                                float initialLearningRate)
      : LRScheduler(target, initialLearningRate), warmup(warmupSteps) {}

  int64_t warmup;
};

/// Rebuilds a scheduler from its config() (e.g. read back from a checkpoint),
/// validating it as the kind's create() does, and applies the schedule at the
/// target's current step count.
Result<std::unique_ptr<LRScheduler>> createLRScheduler(LearningRateTarget &target,
                                                       const LRSchedulerConfig &config);

} // namespace odt

#endif // ODT_RUNTIME_LRSCHEDULER_H
