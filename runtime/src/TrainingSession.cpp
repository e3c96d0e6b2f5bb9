#include "TrainingSession.h"

#include "DeviceSteps.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace odt {

namespace {

// Properties recording the registered scheduler (its position is the
// optimizer's step count, saved with the optimizer state).
constexpr const char *kWarmupProperty = "odt.lr_scheduler.warmup_steps";
constexpr const char *kTotalProperty = "odt.lr_scheduler.total_steps";
constexpr const char *kInitialLRProperty = "odt.lr_scheduler.initial_lr";
constexpr const char *kCyclesProperty = "odt.lr_scheduler.num_cycles";

template <typename T>
const T *findProperty(const CheckpointState &state, const char *name) {
  auto it = state.properties.find(name);
  return it == state.properties.end() ? nullptr : std::get_if<T>(&it->second);
}

/// The scheduler recorded in `state`, if any.
Result<std::optional<LRSchedulerConfig>>
readSchedulerConfig(const CheckpointState &state) {
  const std::string *kind =
      findProperty<std::string>(state, kSchedulerProperty);
  if (!kind)
    return std::optional<LRSchedulerConfig>();
  const int64_t *warmup = findProperty<int64_t>(state, kWarmupProperty);
  const int64_t *total = findProperty<int64_t>(state, kTotalProperty);
  const float *initial = findProperty<float>(state, kInitialLRProperty);
  // num_cycles is a double: kept as text so it survives exactly.
  const std::string *cycles = findProperty<std::string>(state, kCyclesProperty);
  if (!warmup || !total || !initial || !cycles)
    return Status::error("the checkpoint records a learning-rate scheduler "
                         "but not all of its odt.lr_scheduler.* properties");
  LRSchedulerConfig config;
  config.kind = *kind;
  config.warmupSteps = *warmup;
  config.totalSteps = *total;
  config.initialLearningRate = *initial;
  char *end = nullptr;
  config.numCycles = std::strtod(cycles->c_str(), &end);
  if (end == cycles->c_str() || *end)
    return Status::error(std::string("the checkpoint's property ") +
                         kCyclesProperty + " is not a number");
  return std::optional<LRSchedulerConfig>(config);
}

void writeSchedulerConfig(CheckpointState &state,
                          const LRSchedulerConfig &config) {
  state.properties[kSchedulerProperty] = config.kind;
  state.properties[kWarmupProperty] = config.warmupSteps;
  state.properties[kTotalProperty] = config.totalSteps;
  state.properties[kInitialLRProperty] = config.initialLearningRate;
  char cycles[32];
  std::snprintf(cycles, sizeof cycles, "%.17g", config.numCycles);
  state.properties[kCyclesProperty] = std::string(cycles);
}

} // namespace

Result<std::unique_ptr<TrainingSession>>
TrainingSession::create(CheckpointState &state,
                        std::shared_ptr<CompiledModel> model,
                        const cuda::DeviceSpec &device) {
  std::unique_ptr<cuda::DeviceSteps> onDevice;
  if (device.kind == cuda::DeviceSpec::Kind::CUDA) {
    // The device first: a machine without a usable driver or device says so
    // whatever the model is.
    Result<std::unique_ptr<cuda::Device>> opened = cuda::Device::open(device);
    if (!opened)
      return opened.getStatus().withContext("opening " + device.text());
    const cuda::Device &gpu = **opened;
    std::string where =
        gpu.name() + " (" + device.text() + ", " + gpu.chip() + ")";
    if (!model->isGPUBuild())
      return Status::error("the compiled model holds CPU code only, no "
                           "kernels for " +
                           where +
                           ": compile it for this GPU with odt-compile "
                           "--gpu-arch=" +
                           gpu.chip() + ", or use the cpu device");
    if (!selectGPUImage(*model, gpu.chip()))
      return Status::error("the compiled model has kernels for " +
                           model->gpuChips() + ", none of them for " + where +
                           " or an older chip: compile it with odt-compile "
                           "--gpu-arch=" +
                           gpu.chip());
    ODT_RETURN_IF_ERROR(Module::checkStateAvailable(state, true));
    Result<std::unique_ptr<cuda::DeviceSteps>> steps =
        cuda::DeviceSteps::create(opened.take(), model);
    if (!steps)
      return steps.getStatus().withContext("preparing the steps on " + where);
    onDevice = steps.take();
  }
  std::unique_ptr<TrainingSession> session(new TrainingSession());
  session->state = &state;
  Result<std::unique_ptr<Module>> module =
      Module::create(model, &state, std::move(onDevice));
  if (!module)
    return module.getStatus();
  session->trainingModule = module.take();
  if (model->entryPoint(EntryKind::Optimizer)) {
    Result<std::unique_ptr<Optimizer>> optimizer =
        Optimizer::create(*session->trainingModule);
    if (!optimizer)
      return optimizer.getStatus();
    session->optimizer = optimizer.take();
  }
  Result<std::optional<LRSchedulerConfig>> saved = readSchedulerConfig(state);
  if (!saved)
    return saved.getStatus();
  if (*saved && session->optimizer) {
    // Resumed: the schedule continues from the saved step count; like ORT's
    // scheduler constructor, re-creating it applies the schedule at that step.
    Result<std::unique_ptr<LRScheduler>> scheduler =
        createLRScheduler(*session->optimizer, **saved);
    if (!scheduler)
      return scheduler.getStatus().withContext("restoring the scheduler");
    session->scheduler = scheduler.take();
  }
  return session;
}

Status TrainingSession::requireOptimizer(const char *what) const {
  if (!optimizer)
    return Status::error(std::string(what) +
                         ": the compiled model has no optimizer step "
                         "(compile it with an optimizer model)");
  return Status::ok();
}

Status TrainingSession::optimizerStep() {
  ODT_RETURN_IF_ERROR(requireOptimizer("OptimizerStep"));
  // Before any TrainStep an optimizer step would apply nothing but count a
  // step (ORT does so silently): always a mistake in the caller's loop.
  // (A nominal state's own error comes first.)
  if (!state->isNominal && !trainingModule->hasComputedGradients())
    return Status::error(
        "OptimizerStep: no TrainStep has run in this session, so there are "
        "no gradients to apply (call TrainStep first)");
  return optimizer->step();
}

Status TrainingSession::setLearningRate(float learningRate) {
  ODT_RETURN_IF_ERROR(requireOptimizer("SetLearningRate"));
  return optimizer->setLearningRate(learningRate);
}

Result<float> TrainingSession::getLearningRate() const {
  ODT_RETURN_IF_ERROR(requireOptimizer("GetLearningRate"));
  return optimizer->getLearningRate();
}

Status TrainingSession::registerScheduler(const LRSchedulerConfig &config) {
  ODT_RETURN_IF_ERROR(requireOptimizer("RegisterLRScheduler"));
  Result<std::unique_ptr<LRScheduler>> created =
      createLRScheduler(*optimizer, config);
  if (!created)
    return created.getStatus();
  scheduler = created.take();
  // As ORT's RegisterScheduler: the initial learning rate becomes the
  // optimizer's, current included, until the first SchedulerStep.
  if (OptimizerGroupState *group = state->findOptimizerGroup("group0"))
    group->initialLearningRate = config.initialLearningRate;
  ODT_RETURN_IF_ERROR(optimizer->setLearningRate(config.initialLearningRate));
  writeSchedulerConfig(*state, scheduler->config());
  return Status::ok();
}

Status TrainingSession::schedulerStep() {
  if (!scheduler)
    return Status::error("SchedulerStep: no learning-rate scheduler is "
                         "registered");
  return scheduler->step();
}

Status TrainingSession::exportModelForInferencing(
    const std::string &path, const std::vector<std::string> &outputNames) {
  return trainingModule->exportModelForInferencing(path, outputNames);
}

} // namespace odt
