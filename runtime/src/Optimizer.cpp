#include "Optimizer.h"

#include "DeviceSteps.h"

#include <cmath>

namespace odt {

Result<std::unique_ptr<Optimizer>> Optimizer::create(Module &module) {
  const EntryPointSpec *entry = module.model().entryPoint(EntryKind::Optimizer);
  if (!entry)
    return Status::error("the model '" + module.model().origin() +
                         "' has no optimizer step (compile it with an "
                         "optimizer model)");
  std::unique_ptr<Optimizer> optimizer(new Optimizer());
  optimizer->module = &module;
  CheckpointState &state = module.state();
  optimizer->group = state.findOptimizerGroup("group0");
  if (!optimizer->group) {
    state.optimizerGroups.push_back(OptimizerGroupState());
    optimizer->group = &state.optimizerGroups.back();
    optimizer->group->initialLearningRate = kDefaultLearningRate;
  }
  // ORT resumes at its default rate whatever the checkpoint's initial rate;
  // odt does the same unless the checkpoint kept the current rate.
  optimizer->learningRate = kDefaultLearningRate;
  auto saved = state.properties.find(kLearningRateProperty);
  if (saved != state.properties.end()) {
    const float *value = std::get_if<float>(&saved->second);
    if (!value || !std::isfinite(*value) || *value < 0)
      return Status::error(std::string("the checkpoint's property ") +
                           kLearningRateProperty +
                           " is not a learning rate (a float >= 0)");
    optimizer->learningRate = *value;
  }

  // Moments of every trainable parameter, checked or created, for the
  // optimizers that keep them (AdamW: two; SGD: none).
  bool keepsMoments = false;
  for (const ArgumentSpec &arg : entry->arguments)
    keepsMoments |= arg.role == ArgumentRole::FirstMoment ||
                    arg.role == ArgumentRole::SecondMoment;
  // Shapes come from the model, not the state: a nominal state's
  // parameters have no values (and no shapes) yet.
  static const char *kMomentNames[] = {"momentum0", "momentum1"};
  const std::vector<ParameterSpec> &specs = module.model().parameters();
  for (size_t i = 0; i < specs.size(); ++i) {
    const ParameterSpec &spec = specs[i];
    if (!spec.trainable || !keepsMoments)
      continue;
    ParameterOptimizerState &moments =
        optimizer->group->parameterStates[spec.name];
    for (const char *name : kMomentNames) {
      auto it = moments.momentums.find(name);
      if (it == moments.momentums.end()) {
        moments.momentums[name] = Tensor::zeros(spec.dtype, spec.shape);
        continue;
      }
      if (it->second.dtype() != spec.dtype || it->second.shape() != spec.shape)
        return Status::error(
            "the checkpoint's " + std::string(name) + " of '" + spec.name +
            "' is " + dataTypeName(it->second.dtype()) +
            formatShape(it->second.shape()) + ", the parameter is " +
            dataTypeName(spec.dtype) + formatShape(spec.shape));
    }
  }

  optimizer->learningRateTensor = Tensor::zeros(DataType::Float, {1});
  optimizer->stepTensor = Tensor::zeros(DataType::Int64, {1});
  optimizer->updatedFlag = Tensor::zeros(DataType::Bool, {1});
  optimizer->call = EntryCall(*entry);
  optimizer->bindings.reserve(4);
  // A nominal state is bound at its first step, once it has values.
  if (!state.isNominal) {
    Status status = optimizer->bindArguments();
    if (!status)
      return status.withContext("optimizer");
  }
  return optimizer;
}

Optimizer::~Optimizer() {
  if (cuda::DeviceSteps *device = module ? module->deviceSteps() : nullptr)
    device->finishPendingLater();
}

Status Optimizer::bindArguments() {
  // Rebound before every step: a parameter's buffer may have been replaced
  // (a nominal state completed, a parameter updated).
  const EntryPointSpec &entry = call.spec();
  for (size_t i = 0; i < entry.arguments.size(); ++i) {
    const ArgumentSpec &arg = entry.arguments[i];
    Parameter *param = arg.parameter >= 0
                           ? module->parameters()[arg.parameter].get()
                           : nullptr;
    Status status;
    switch (arg.role) {
    case ArgumentRole::LearningRate:
      status = call.set(i, learningRateTensor);
      break;
    case ArgumentRole::Step:
      status = call.set(i, stepTensor);
      break;
    case ArgumentRole::UpdatedFlag:
      status = call.set(i, updatedFlag);
      break;
    case ArgumentRole::Parameter:
      status = call.set(i, param->data);
      break;
    case ArgumentRole::GradientBuffer:
      status = call.set(i, param->gradient);
      break;
    case ArgumentRole::FirstMoment:
    case ArgumentRole::SecondMoment: {
      auto &moments = group->parameterStates[param->name].momentums;
      status = call.set(
          i, moments[arg.role == ArgumentRole::FirstMoment ? "momentum0"
                                                           : "momentum1"]);
      break;
    }
    default:
      status = Status::error("argument '" + arg.name + "' (" +
                             argumentRoleName(arg.role) +
                             ") does not belong in an optimizer step");
    }
    ODT_RETURN_IF_ERROR(status);
  }
  return call.checkOtherShapes(bindings);
}

Status Optimizer::step() {
  if (module->state().isNominal)
    return Status::error("OptimizerStep: the checkpoint state is nominal; "
                         "complete it with CopyBufferToParameters first");
  cuda::DeviceSteps *device = module->deviceSteps();
  // The step count includes the previous step's update (on a device, it
  // may still be running).
  if (device)
    ODT_RETURN_IF_ERROR(device->finishPending());
  learningRateTensor.data<float>()[0] = learningRate;
  stepTensor.data<int64_t>()[0] = group->step + 1;
  updatedFlag.data<uint8_t>()[0] = 0;
  Status status = bindArguments();
  if (!status)
    return status.withContext("OptimizerStep");
  if (device) {
    // Not waited for: the updated flag counts the step when the step is
    // next waited for (TrainStep's wait, or a reader of the count or the
    // state). The device copies of the parameters it wrote get their new
    // versions there.
    return device->run(EntryKind::Optimizer, call, [this] {
      if (updatedFlag.data<uint8_t>()[0])
        ++group->step;
    });
  }
  call.invoke(module->threadPool(), module->flushesDenormals());
  // The update wrote the trainable parameters in place.
  for (const auto &param : module->parameters())
    if (param->requiresGrad)
      ++param->version;
  if (updatedFlag.data<uint8_t>()[0])
    ++group->step;
  return Status::ok();
}

Status Optimizer::setLearningRate(float value) {
  if (!std::isfinite(value) || value < 0)
    return Status::error("the learning rate must be finite and >= 0, got " +
                         std::to_string(value));
  learningRate = value;
  module->state().properties[kLearningRateProperty] = value;
  return Status::ok();
}

int64_t Optimizer::stepCount() const {
  // An optimizer step still running on a device counts once it is done.
  // (Its failure, if any, comes back from the session's next call.)
  if (cuda::DeviceSteps *device = module->deviceSteps())
    device->finishPendingLater();
  return group->step;
}

} // namespace odt
