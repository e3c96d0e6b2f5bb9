// Learning-rate schedulers: see LRScheduler.h for the semantics and where
// they come from.

#include "LRScheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace odt {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// A float or double as written in a message (9 significant digits).
std::string formatNumber(double value) {
  // snprintf, not a stringstream: iostreams would be the largest part of a
  // device's runtime.
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

Status checkWarmup(const char *scheduler, int64_t warmupSteps) {
  if (warmupSteps < 0)
    return Status::error(std::string(scheduler) + ": warmupSteps must be >= 0, got " +
                         std::to_string(warmupSteps));
  return Status::ok();
}

Status checkTotal(const char *scheduler, int64_t totalSteps) {
  if (totalSteps < 0)
    return Status::error(std::string(scheduler) + ": totalSteps must be >= 0, got " +
                         std::to_string(totalSteps));
  return Status::ok();
}

Status checkInitialLearningRate(const char *scheduler, float initialLearningRate) {
  if (!std::isfinite(initialLearningRate) || initialLearningRate < 0.0f)
    return Status::error(std::string(scheduler) +
                         ": initialLearningRate must be finite and >= 0, got " +
                         formatNumber(initialLearningRate));
  return Status::ok();
}

/// The warm-up ramp shared by the Hugging Face schedules, in double.
double warmupFactor(int64_t stepCount, int64_t warmupSteps) {
  return static_cast<double>(stepCount) /
         static_cast<double>(std::max<int64_t>(1, warmupSteps));
}

/// Applies the schedule once (ORT's constructor does) and hands the
/// scheduler back, or the reason the target refused the first value.
template <typename Scheduler>
Result<std::unique_ptr<Scheduler>> applyFirstStep(std::unique_ptr<Scheduler> scheduler,
                                                  const char *name) {
  Status status = scheduler->step();
  if (!status.isOk())
    return status.withContext(std::string(name) + ": setting the first learning rate");
  return scheduler;
}

} // namespace

Status LRScheduler::step() {
  int64_t stepCount = scheduled->stepCount();
  if (stepCount < 0)
    return Status::error(kind() + " learning-rate scheduler: the optimizer step count is negative (" +
                         std::to_string(stepCount) + ")");
  return scheduled->setLearningRate(learningRateAt(stepCount));
}

// ----------------------------------------------------------------------------
// LinearLRScheduler: ORT's arithmetic, in float.
// ----------------------------------------------------------------------------

Result<std::unique_ptr<LinearLRScheduler>>
LinearLRScheduler::create(LearningRateTarget &target, int64_t warmupSteps, int64_t totalSteps,
                          float initialLearningRate) {
  const char *name = "LinearLRScheduler";
  ODT_RETURN_IF_ERROR(checkWarmup(name, warmupSteps));
  ODT_RETURN_IF_ERROR(checkTotal(name, totalSteps));
  ODT_RETURN_IF_ERROR(checkInitialLearningRate(name, initialLearningRate));
  // warmupSteps > totalSteps is allowed, as in ORT: every step is warm-up.
  return applyFirstStep(std::unique_ptr<LinearLRScheduler>(new LinearLRScheduler(
                            target, warmupSteps, totalSteps, initialLearningRate)),
                        name);
}

float LinearLRScheduler::learningRateAt(int64_t stepCount) const {
  float factor;
  if (stepCount < warmup) {
    factor = static_cast<float>(stepCount) / std::max(1.0f, static_cast<float>(warmup));
  } else {
    int64_t remaining = total - stepCount;
    int64_t afterWarmup = total - warmup;
    factor = std::max(0.0f, static_cast<float>(remaining) /
                                std::max(1.0f, static_cast<float>(afterWarmup)));
  }
  return initialLearningRate() * factor;
}

LRSchedulerConfig LinearLRScheduler::config() const {
  LRSchedulerConfig result;
  result.kind = kLinearLRSchedulerKind;
  result.warmupSteps = warmup;
  result.totalSteps = total;
  result.initialLearningRate = initialLearningRate();
  result.numCycles = 0.0;
  return result;
}

// ----------------------------------------------------------------------------
// CosineWithWarmupLRScheduler: Hugging Face's formula, in double.
// ----------------------------------------------------------------------------

Result<std::unique_ptr<CosineWithWarmupLRScheduler>>
CosineWithWarmupLRScheduler::create(LearningRateTarget &target, int64_t warmupSteps,
                                    int64_t totalSteps, float initialLearningRate,
                                    double numCycles) {
  const char *name = "CosineWithWarmupLRScheduler";
  ODT_RETURN_IF_ERROR(checkWarmup(name, warmupSteps));
  ODT_RETURN_IF_ERROR(checkTotal(name, totalSteps));
  if (totalSteps < warmupSteps)
    return Status::error(std::string(name) + ": totalSteps (" + std::to_string(totalSteps) +
                         ") must be >= warmupSteps (" + std::to_string(warmupSteps) + ")");
  ODT_RETURN_IF_ERROR(checkInitialLearningRate(name, initialLearningRate));
  if (!std::isfinite(numCycles) || numCycles <= 0.0)
    return Status::error(std::string(name) + ": numCycles must be finite and > 0, got " +
                         formatNumber(numCycles));
  return applyFirstStep(
      std::unique_ptr<CosineWithWarmupLRScheduler>(new CosineWithWarmupLRScheduler(
          target, warmupSteps, totalSteps, initialLearningRate, numCycles)),
      name);
}

float CosineWithWarmupLRScheduler::learningRateAt(int64_t stepCount) const {
  double factor;
  if (stepCount < warmup) {
    factor = warmupFactor(stepCount, warmup);
  } else {
    double progress = static_cast<double>(stepCount - warmup) /
                      static_cast<double>(std::max<int64_t>(1, total - warmup));
    factor = std::max(0.0, 0.5 * (1.0 + std::cos(kPi * cycles * 2.0 * progress)));
  }
  return static_cast<float>(static_cast<double>(initialLearningRate()) * factor);
}

LRSchedulerConfig CosineWithWarmupLRScheduler::config() const {
  LRSchedulerConfig result;
  result.kind = kCosineWithWarmupLRSchedulerKind;
  result.warmupSteps = warmup;
  result.totalSteps = total;
  result.initialLearningRate = initialLearningRate();
  result.numCycles = cycles;
  return result;
}

// ----------------------------------------------------------------------------
// ConstantWithWarmupLRScheduler: Hugging Face's formula, in double.
// ----------------------------------------------------------------------------

Result<std::unique_ptr<ConstantWithWarmupLRScheduler>>
ConstantWithWarmupLRScheduler::create(LearningRateTarget &target, int64_t warmupSteps,
                                      float initialLearningRate) {
  const char *name = "ConstantWithWarmupLRScheduler";
  ODT_RETURN_IF_ERROR(checkWarmup(name, warmupSteps));
  ODT_RETURN_IF_ERROR(checkInitialLearningRate(name, initialLearningRate));
  return applyFirstStep(std::unique_ptr<ConstantWithWarmupLRScheduler>(
                            new ConstantWithWarmupLRScheduler(target, warmupSteps,
                                                              initialLearningRate)),
                        name);
}

float ConstantWithWarmupLRScheduler::learningRateAt(int64_t stepCount) const {
  double factor = stepCount < warmup ? warmupFactor(stepCount, warmup) : 1.0;
  return static_cast<float>(static_cast<double>(initialLearningRate()) * factor);
}

LRSchedulerConfig ConstantWithWarmupLRScheduler::config() const {
  LRSchedulerConfig result;
  result.kind = kConstantWithWarmupLRSchedulerKind;
  result.warmupSteps = warmup;
  result.totalSteps = 0;
  result.initialLearningRate = initialLearningRate();
  result.numCycles = 0.0;
  return result;
}

// ----------------------------------------------------------------------------

namespace {

template <typename Scheduler>
Result<std::unique_ptr<LRScheduler>> upcast(Result<std::unique_ptr<Scheduler>> created) {
  if (!created.isOk())
    return created.getStatus();
  return std::unique_ptr<LRScheduler>(created.take());
}

} // namespace

Result<std::unique_ptr<LRScheduler>> createLRScheduler(LearningRateTarget &target,
                                                       const LRSchedulerConfig &config) {
  if (config.kind == kLinearLRSchedulerKind)
    return upcast(LinearLRScheduler::create(target, config.warmupSteps, config.totalSteps,
                                            config.initialLearningRate));
  if (config.kind == kCosineWithWarmupLRSchedulerKind)
    return upcast(CosineWithWarmupLRScheduler::create(target, config.warmupSteps,
                                                      config.totalSteps,
                                                      config.initialLearningRate,
                                                      config.numCycles));
  if (config.kind == kConstantWithWarmupLRSchedulerKind)
    return upcast(ConstantWithWarmupLRScheduler::create(target, config.warmupSteps,
                                                        config.initialLearningRate));
  return Status::error("unknown learning-rate scheduler kind '" + config.kind +
                       "' (expected '" + kLinearLRSchedulerKind + "', '" +
                       kCosineWithWarmupLRSchedulerKind + "' or '" +
                       kConstantWithWarmupLRSchedulerKind + "')");
}

} // namespace odt
