#include "Module.h"

#include "DeviceSteps.h"

#include <atomic>
#include <cmath>
#include <cstring>

namespace odt {

namespace {

std::atomic<int64_t> globalSeed{0};
// Incremented by every setSeed(), so sessions see a new call even when the
// value repeats.
std::atomic<uint64_t> globalSeedGeneration{0};

constexpr const char *kRandomSeedProperty = "odt.random_seed";
constexpr const char *kRandomStepProperty = "odt.random_step";

} // namespace

void setSeed(int64_t seed) {
  globalSeed = seed;
  ++globalSeedGeneration;
}
int64_t getSeed() { return globalSeed; }

Module::~Module() {
  // The device's values go back to the state before the state is left.
  device.reset();
  if (checkpoint)
    --checkpoint->sessions.count;
}

Status Module::checkStateAvailable(const CheckpointState &state,
                                   bool onDevice) {
  // A session on a device keeps the state's values there: another session
  // on the same state would read and write stale host values.
  if (state.sessions.deviceMirror)
    return Status::error("the checkpoint state is used by a training session "
                         "on a device; a second session cannot share it "
                         "(load the checkpoint again for another session)");
  if (onDevice && state.sessions.count > 0)
    return Status::error("the checkpoint state is used by another training "
                         "session; a session on a device needs a state of "
                         "its own (load the checkpoint again)");
  return Status::ok();
}

Result<std::unique_ptr<Module>>
Module::create(std::shared_ptr<CompiledModel> model, CheckpointState *state,
               std::unique_ptr<cuda::DeviceSteps> device) {
  if (!model || !state)
    return Status::error(
        "Module needs a compiled model and a checkpoint state");
  ODT_RETURN_IF_ERROR(checkStateAvailable(*state, device != nullptr));
  // Its code launches kernels through a launcher only a cuda device
  // installs: on the CPU its steps would compute nothing.
  if (model->isGPUBuild() && !device)
    return Status::error(
        "the compiled model '" + model->origin() +
        "' is a GPU build (kernels for " + model->gpuChips() +
        "): it runs on a cuda device, not on the CPU; compile it without "
        "--gpu-arch for the CPU");
  std::unique_ptr<Module> module(new Module());
  module->compiled = model;
  module->checkpoint = state;
  ++state->sessions.count;

  // The model's parameters, matched by name against the state.
  for (const ParameterSpec &spec : model->parameters()) {
    std::shared_ptr<Parameter> param = state->findParameter(spec.name);
    if (!param)
      return Status::error("the checkpoint has no parameter '" + spec.name +
                           "', which the model '" + model->origin() +
                           "' needs");
    if (param->dtype != spec.dtype)
      return Status::error("parameter '" + spec.name + "' is " +
                           dataTypeName(param->dtype) +
                           " in the checkpoint but " +
                           dataTypeName(spec.dtype) + " in the model");
    if (param->requiresGrad != spec.trainable)
      return Status::error("parameter '" + spec.name + "' is " +
                           (param->requiresGrad ? "trainable" : "frozen") +
                           " in the checkpoint but " +
                           (spec.trainable ? "trainable" : "frozen") +
                           " in the model");
    if (!state->isNominal && param->data.shape() != spec.shape)
      return Status::error("parameter '" + spec.name + "' has shape " +
                           formatShape(param->data.shape()) +
                           " in the checkpoint but " + formatShape(spec.shape) +
                           " in the model");
    if (spec.trainable && param->gradient.empty())
      param->gradient = Tensor::zeros(spec.dtype, spec.shape);
    module->params.push_back(param);
  }
  for (const auto &param : state->parameters) {
    bool used = false;
    for (const auto &own : module->params)
      used |= own == param;
    if (!used)
      return Status::error("the checkpoint's parameter '" + param->name +
                           "' is not a parameter of the model '" +
                           model->origin() + "'");
  }

  // The random state: a checkpoint's, else the global seed.
  module->randomState = Tensor::zeros(DataType::Int64, {2});
  module->seedGeneration = globalSeedGeneration;
  module->seed = globalSeed;
  auto seedProperty = state->properties.find(kRandomSeedProperty);
  auto stepProperty = state->properties.find(kRandomStepProperty);
  if (seedProperty != state->properties.end() &&
      stepProperty != state->properties.end()) {
    const int64_t *savedSeed = std::get_if<int64_t>(&seedProperty->second);
    const int64_t *savedStep = std::get_if<int64_t>(&stepProperty->second);
    if (!savedSeed || !savedStep || *savedStep < 0)
      return Status::error(std::string("the checkpoint's properties ") +
                           kRandomSeedProperty + " and " + kRandomStepProperty +
                           " must be integers (a step count >= 0)");
    module->seed = *savedSeed;
    module->counter = *savedStep;
  }

  module->lazyResetFlag = Tensor::zeros(DataType::Bool, {1});
  module->lazyResetFlag.data<uint8_t>()[0] = 1;
  for (EntryKind kind : {EntryKind::Train, EntryKind::Eval}) {
    const EntryPointSpec *entry = model->entryPoint(kind);
    if (!entry)
      continue;
    auto step = std::make_unique<Step>();
    step->kind = kind;
    step->call = EntryCall(*entry);
    for (size_t i = 0; i < entry->arguments.size(); ++i) {
      if (entry->arguments[i].role == ArgumentRole::UserInput)
        step->inputArgs.push_back(i);
      else if (entry->arguments[i].role == ArgumentRole::UserOutput)
        step->outputArgs.push_back(i);
      else if (entry->arguments[i].role == ArgumentRole::PackedPanels)
        ODT_RETURN_IF_ERROR(module->addPanelUse(*step, *entry, i));
    }
    size_t symbols = 0;
    for (const ArgumentSpec &arg : entry->arguments)
      symbols += arg.dims.size();
    step->bindings.reserve(symbols);
    (kind == EntryKind::Train ? module->train : module->eval) = std::move(step);
  }
  if (!module->train && !module->eval)
    return Status::error("the model '" + model->origin() +
                         "' has neither a train nor an eval step");
  if (device) {
    ODT_RETURN_IF_ERROR(device->attach(*state, module->params));
    module->device = std::move(device);
  }
  ODT_RETURN_IF_ERROR(module->setThreads(0));
  return module;
}

Status Module::addPanelUse(Step &step, const EntryPointSpec &entry,
                           size_t panelsArg) {
  const ArgumentSpec &arg = entry.arguments[panelsArg];
  auto malformed = [&](const std::string &why) {
    return Status::error("the model '" + compiled->origin() +
                         "' has a malformed panel cache '" + arg.name +
                         "': " + why);
  };
  Shape shape;
  for (const DimSpec &dim : arg.dims) {
    if (dim.size < 0)
      return malformed("its dims must be static");
    shape.push_back(dim.size);
  }
  if (arg.parameter < 0 || size_t(arg.parameter) >= params.size())
    return malformed("it names no parameter of the model");
  PanelUse use;
  use.panelsArg = panelsArg;
  use.param = arg.parameter;
  bool paired = false;
  for (size_t i = 0; i < entry.arguments.size() && !paired; ++i)
    if (entry.arguments[i].role == ArgumentRole::PanelsStale &&
        entry.arguments[i].name == arg.name + ".stale") {
      use.staleArg = i;
      paired = true;
    }
  if (!paired)
    return malformed("it has no stale flag");
  auto [it, added] = panelCaches.try_emplace(arg.name);
  PanelCache &cache = it->second;
  if (added) {
    // Filled before it is first read (it starts stale); untouched pages
    // cost nothing while no step takes the packed path (batch 1-16).
    cache.panels = Tensor::uninitialized(arg.dtype, shape);
    if (cache.panels.empty())
      return Status::error("cannot allocate the panels '" + arg.name + "' (" +
                           formatShape(shape) + ")");
  } else if (cache.panels.shape() != shape ||
             cache.panels.dtype() != arg.dtype) {
    return malformed("the train and eval steps give it different shapes");
  }
  use.cache = &cache;
  use.stale = Tensor::zeros(DataType::Bool, {1});
  step.panels.push_back(std::move(use));
  return Status::ok();
}

std::map<std::string, std::shared_ptr<Parameter>>
Module::namedParameters() const {
  std::map<std::string, std::shared_ptr<Parameter>> named;
  for (const auto &param : params)
    named[param->name] = param;
  return named;
}

int64_t Module::getParametersSize(bool trainableOnly) const {
  int64_t size = 0;
  for (const ParameterSpec &spec : compiled->parameters())
    if (spec.trainable || !trainableOnly)
      size += numElements(spec.shape);
  return size;
}

namespace {

/// Checks a flat parameter buffer against the parameters it covers.
Status checkParameterBuffer(const char *what, const Tensor &buffer,
                            const std::vector<ParameterSpec> &specs,
                            bool trainableOnly, int64_t expectedSize) {
  if (buffer.empty() || buffer.data() == nullptr)
    return Status::error(std::string(what) + ": no buffer given");
  for (const ParameterSpec &spec : specs) {
    if (trainableOnly && !spec.trainable)
      continue;
    if (spec.dtype != buffer.dtype())
      return Status::error(std::string(what) + ": the buffer is " +
                           dataTypeName(buffer.dtype()) + " but parameter '" +
                           spec.name + "' is " + dataTypeName(spec.dtype) +
                           " (one buffer holds parameters of one dtype)");
  }
  if (buffer.size() != expectedSize)
    return Status::error(std::string(what) + ": the buffer holds " +
                         std::to_string(buffer.size()) +
                         " elements, the parameters" +
                         (trainableOnly ? " (trainable only)" : "") + " need " +
                         std::to_string(expectedSize));
  return Status::ok();
}

} // namespace

Status Module::copyParametersToBuffer(Tensor &buffer,
                                      bool trainableOnly) const {
  const char *what = "CopyParametersToBuffer";
  ODT_RETURN_IF_ERROR(checkParameterBuffer(what, buffer, compiled->parameters(),
                                           trainableOnly,
                                           getParametersSize(trainableOnly)));
  if (Status synced = checkpoint->synchronizeHost(); !synced)
    return synced.withContext(what);
  auto *out = static_cast<char *>(buffer.data());
  for (const auto &param : params) {
    if (trainableOnly && !param->requiresGrad)
      continue;
    if (param->data.empty())
      return Status::error(std::string(what) + ": parameter '" + param->name +
                           "' has no values (the state is nominal)");
    std::memcpy(out, param->data.data(), param->data.byteSize());
    out += param->data.byteSize();
  }
  return Status::ok();
}

Status Module::copyBufferToParameters(const Tensor &buffer,
                                      bool trainableOnly) {
  const char *what = "CopyBufferToParameters";
  ODT_RETURN_IF_ERROR(checkParameterBuffer(what, buffer, compiled->parameters(),
                                           trainableOnly,
                                           getParametersSize(trainableOnly)));
  const auto *in = static_cast<const char *>(buffer.data());
  const std::vector<ParameterSpec> &specs = compiled->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    Parameter &param = *params[i];
    if (trainableOnly && !param.requiresGrad)
      continue;
    if (param.data.empty()) {
      // A nominal state's parameter gets its buffer now.
      param.data = Tensor::zeros(specs[i].dtype, specs[i].shape);
      if (param.data.empty())
        return Status::error(std::string(what) + ": cannot allocate '" +
                             param.name + "'");
    }
    std::memcpy(param.data.data(), in, param.data.byteSize());
    ++param.version;
    in += param.data.byteSize();
  }
  if (checkpoint->isNominal) {
    bool complete = true;
    for (const auto &param : checkpoint->parameters)
      complete &= !param->data.empty();
    checkpoint->isNominal = !complete;
  }
  return Status::ok();
}

std::shared_ptr<Parameter>
Module::findParameter(const std::string &name) const {
  for (const auto &param : params)
    if (param->name == name)
      return param;
  return nullptr;
}

Status Module::lazyResetGrad() {
  lazyResetFlag.data<uint8_t>()[0] = 1;
  return Status::ok();
}

Status Module::bindStateArguments(Step &step) {
  const EntryPointSpec &entry = step.call.spec();
  randomStatePending = false;
  for (size_t i = 0; i < entry.arguments.size(); ++i) {
    const ArgumentSpec &arg = entry.arguments[i];
    switch (arg.role) {
    case ArgumentRole::Parameter:
      ODT_RETURN_IF_ERROR(step.call.set(i, params[arg.parameter]->data));
      break;
    case ArgumentRole::GradientBuffer:
      ODT_RETURN_IF_ERROR(step.call.set(i, params[arg.parameter]->gradient));
      break;
    case ArgumentRole::LazyResetGrad:
      ODT_RETURN_IF_ERROR(step.call.set(i, lazyResetFlag));
      break;
    case ArgumentRole::RandomState:
      prepareRandomState();
      ODT_RETURN_IF_ERROR(step.call.set(i, randomState));
      break;
    case ArgumentRole::UserInput:
    case ArgumentRole::UserOutput:
    case ArgumentRole::PackedPanels: // bound below
    case ArgumentRole::PanelsStale:
      break;
    default:
      return Status::error("argument '" + arg.name + "' (" +
                           argumentRoleName(arg.role) +
                           ") does not belong in a train or eval step");
    }
  }
  // Kept panels are stale when their parameter changed since they were
  // filled; the step fills them (when it takes the packed path) and clears
  // the flag.
  for (PanelUse &use : step.panels) {
    use.boundVersion = params[use.param]->version;
    use.boundStale = use.cache->filledVersion != use.boundVersion;
    use.stale.data<uint8_t>()[0] = use.boundStale ? 1 : 0;
    ODT_RETURN_IF_ERROR(step.call.set(use.panelsArg, use.cache->panels));
    ODT_RETURN_IF_ERROR(step.call.set(use.staleArg, use.stale));
  }
  return Status::ok();
}

void Module::prepareRandomState() {
  uint64_t generation = globalSeedGeneration;
  if (generation != seedGeneration) {
    seedGeneration = generation;
    seed = globalSeed;
    counter = 0;
  }
  randomState.data<int64_t>()[0] = seed;
  randomState.data<int64_t>()[1] = counter + 1;
  randomStatePending = true;
}

void Module::commitRandomState() {
  if (!randomStatePending)
    return;
  randomStatePending = false;
  ++counter;
  // Recorded in the state, so a saved checkpoint resumes the sequence.
  auto record = [&](const char *name, int64_t value) {
    auto it = checkpoint->properties.find(name);
    if (it != checkpoint->properties.end())
      it->second = value; // no allocation in the steady state
    else
      checkpoint->properties.emplace(name, value);
  };
  record(kRandomSeedProperty, seed);
  record(kRandomStepProperty, counter);
}

Status Module::run(Step &step, const char *what, std::vector<Tensor> &inputs,
                   std::vector<Tensor> &outputs) {
  if (checkpoint->isNominal)
    return Status::error(std::string(what) +
                         ": the checkpoint state is nominal (it has no "
                         "parameter values); complete it with "
                         "CopyBufferToParameters(trainable_only=false) first");
  const EntryPointSpec &entry = step.call.spec();
  if (inputs.size() != step.inputArgs.size()) {
    std::string names;
    for (size_t index : step.inputArgs)
      names += (names.empty() ? "" : ", ") + entry.arguments[index].name;
    return Status::error(std::string(what) + ": expected " +
                         std::to_string(step.inputArgs.size()) + " inputs (" +
                         names + "), got " + std::to_string(inputs.size()));
  }
  // A shape function may read parameter values: on a device they must be
  // the current ones. (No GPU build has one today; the check costs a copy.)
  if (device && entry.shapeFunction)
    ODT_RETURN_IF_ERROR(checkpoint->synchronizeHost());
  ODT_RETURN_IF_ERROR(bindStateArguments(step));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].onDevice())
      ODT_RETURN_IF_ERROR(checkDeviceInput(
          what, entry, entry.arguments[step.inputArgs[i]], inputs[i]));
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status status = step.call.set(step.inputArgs[i], inputs[i]);
    if (!status)
      return status.withContext(what);
  }
  // The inputs bind the symbolic dims; the outputs get the shapes those
  // imply (buffers whose shape already fits are reused).
  step.bindings.clear();
  Status status = step.call.bindInputShapes(step.bindings);
  if (!status)
    return status.withContext(what);
  // Parameters and state are bound before the shape function reads them.
  status = step.call.checkOtherShapes(step.bindings, /*includeOutputs=*/false);
  if (!status)
    return status.withContext(what);
  // Values first: the shape function may index with them.
  status = step.call.checkInputValues();
  if (!status)
    return status.withContext(what);
  status = step.call.bindOutputShapes(step.bindings);
  if (!status)
    return status.withContext(what);
  outputs.resize(step.outputArgs.size());
  for (size_t i = 0; i < step.outputArgs.size(); ++i) {
    size_t index = step.outputArgs[i];
    Shape &shape = step.outputShape;
    Status expected = step.call.expectedShape(index, step.bindings, shape);
    if (!expected)
      return expected.withContext(what);
    bool fits = !outputs[i].empty() && outputs[i].shape() == shape &&
                outputs[i].dtype() == entry.arguments[index].dtype;
    if (!fits && !outputs[i].empty() && !outputs[i].ownsData())
      // A buffer of the caller's: never replaced behind their back.
      return Status::error(std::string(what) + ": output '" +
                           entry.arguments[index].name + "' must be " +
                           dataTypeName(entry.arguments[index].dtype) + " " +
                           formatShape(shape) + ", the buffer given is " +
                           dataTypeName(outputs[i].dtype()) + " " +
                           formatShape(outputs[i].shape()));
    if (!fits)
      outputs[i] = Tensor::zeros(entry.arguments[index].dtype, shape);
    if (outputs[i].empty())
      return Status::error(std::string(what) + ": cannot allocate output '" +
                           entry.arguments[index].name + "' of shape " +
                           formatShape(shape));
    ODT_RETURN_IF_ERROR(step.call.set(index, outputs[i]));
  }
  status = step.call.checkOtherShapes(step.bindings);
  if (!status)
    return status.withContext(what);
  if (device) {
    status = device->run(step.kind, step.call);
    if (!status)
      return status;
  } else {
    step.call.invoke(pool.get(), flushDenormals);
  }
  // Only a step that ran draws from the sequence (a refused one does not).
  commitRandomState();
  for (PanelUse &use : step.panels)
    if (use.boundStale && !use.stale.data<uint8_t>()[0]) {
      use.cache->filledVersion = use.boundVersion;
      ++panelFillCount;
    }
  return Status::ok();
}

Status Module::checkDeviceInput(const char *what, const EntryPointSpec &entry,
                                const ArgumentSpec &argument,
                                const Tensor &input) const {
  // Runs at every step of a device session: the message is made only when
  // the input is refused.
  std::string why;
  if (!device)
    why = "the session runs on the CPU: pass it in host memory";
  else if (input.device() != device->device().ordinal())
    why = "the session runs on cuda:" +
          std::to_string(device->device().ordinal());
  else if (argument.hasValueRange)
    why = "its values (indices into a table) are checked on the host before "
          "the step: pass it in host memory";
  else if (entry.shapeFunction)
    why = "this step computes sizes on the host from its arguments' values: "
          "pass its inputs in host memory";
  else
    return Status::ok();
  return Status::error(std::string(what) + ": input '" + argument.name +
                       "' is in the memory of cuda:" +
                       std::to_string(input.device()) + ", but " + why);
}

Status Module::setThreads(int count) {
  if (count < 0)
    return Status::error("the thread count must be 0 (one per core) or "
                         "positive, got " +
                         std::to_string(count));
  int total = count ? count : defaultThreadCount();
  if (!pool || pool->size() != total) {
    pool.reset(); // its workers stop before the new ones start
    try {
      pool = std::make_unique<ThreadPool>(total);
    } catch (const std::exception &error) {
      return Status::error("cannot start " + std::to_string(total) +
                           " threads: " + error.what());
    }
  }
  threads = count;
  return Status::ok();
}

Status Module::trainStep(std::vector<Tensor> &inputs,
                         std::vector<Tensor> &outputs) {
  if (!train)
    return Status::error("TrainStep: the model has no training graph");
  for (const auto &param : params)
    if (param->requiresGrad && param->gradient.empty())
      param->gradient = Tensor::zeros(param->dtype, param->data.shape());
  ODT_RETURN_IF_ERROR(run(*train, "TrainStep", inputs, outputs));
  lazyResetFlag.data<uint8_t>()[0] = 0;
  computedGradients = true;
  if (stopOnNonFiniteLoss && !outputs.empty() &&
      outputs[0].dtype() == DataType::Float && outputs[0].size() == 1 &&
      !std::isfinite(outputs[0].data<float>()[0]))
    return Status::error(
        "TrainStep: the loss is " +
        std::string(std::isnan(outputs[0].data<float>()[0]) ? "NaN"
                                                            : "infinite") +
        " (training stops on a non-finite loss); this step's gradients are "
        "accumulated: LazyResetGrad discards them, the parameters are "
        "unchanged");
  return Status::ok();
}

Status Module::evalStep(std::vector<Tensor> &inputs,
                        std::vector<Tensor> &outputs) {
  if (!eval)
    return Status::error("EvalStep: the model has no eval graph");
  return run(*eval, "EvalStep", inputs, outputs);
}

std::vector<std::string> Module::argumentNames(const Step *step, bool outputs) {
  std::vector<std::string> names;
  if (!step)
    return names;
  for (size_t index : outputs ? step->outputArgs : step->inputArgs)
    names.push_back(step->call.spec().arguments[index].name);
  return names;
}

std::vector<std::string> Module::trainingInputNames() const {
  return argumentNames(train.get(), false);
}
std::vector<std::string> Module::trainingOutputNames() const {
  return argumentNames(train.get(), true);
}
std::vector<std::string> Module::evalInputNames() const {
  return argumentNames(eval.get(), false);
}
std::vector<std::string> Module::evalOutputNames() const {
  return argumentNames(eval.get(), true);
}

} // namespace odt
