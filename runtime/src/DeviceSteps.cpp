#include "DeviceSteps.h"

#include <cstdio>
#include <cstring>

namespace odt {
namespace cuda {

namespace {

/// The roles whose tensors are the session's state: one device copy each,
/// kept between steps.
bool isStateRole(ArgumentRole role) {
  return role == ArgumentRole::Parameter ||
         role == ArgumentRole::GradientBuffer ||
         role == ArgumentRole::FirstMoment ||
         role == ArgumentRole::SecondMoment;
}

/// A per-call argument the step reads: copied in before it. (An output is
/// written whole by the step.)
bool isStagedIn(const ArgumentSpec &argument) {
  return argument.role != ArgumentRole::UserOutput;
}

/// A per-call argument the step writes: copied out after it.
bool isStagedOut(const ArgumentSpec &argument) {
  return argument.role == ArgumentRole::UserOutput || argument.writes;
}

const char *entryName(EntryKind kind) {
  switch (kind) {
  case EntryKind::Train:
    return "TrainStep";
  case EntryKind::Eval:
    return "EvalStep";
  case EntryKind::Optimizer:
    return "OptimizerStep";
  }
  return "step";
}

} // namespace

Result<std::unique_ptr<DeviceSteps>>
DeviceSteps::create(std::unique_ptr<Device> device,
                    std::shared_ptr<CompiledModel> model) {
  if (!device || !model)
    return Status::error("DeviceSteps needs a device and a compiled model");
  // Kept panels (a CPU build's packed products) are state the device
  // path does not keep: a GPU build never has them.
  for (EntryKind kind :
       {EntryKind::Train, EntryKind::Eval, EntryKind::Optimizer}) {
    const EntryPointSpec *entry = model->entryPoint(kind);
    if (!entry)
      continue;
    for (const ArgumentSpec &argument : entry->arguments)
      if (argument.role == ArgumentRole::PackedPanels ||
          argument.role == ArgumentRole::PanelsStale)
        return Status::error("the compiled model '" + model->origin() +
                             "' has kept panels ('" + argument.name +
                             "'), which a GPU build never has");
  }
  std::unique_ptr<DeviceSteps> steps(new DeviceSteps());
  Result<std::unique_ptr<KernelRunner>> runner =
      KernelRunner::create(*device, model);
  if (!runner)
    return runner.getStatus();
  steps->gpu = std::move(device);
  steps->model = std::move(model);
  steps->runner = runner.take();
  return steps;
}

DeviceSteps::~DeviceSteps() {
  if (!state)
    return;
  // The state outlives the session: it gets the device's values now. A
  // failure cannot be returned from here; it is said, not swallowed.
  if (Status synced = copyToHost(); !synced)
    std::fprintf(stderr,
                 "odt: the training session on %s ended without copying its "
                 "last values back to the checkpoint state: %s\n",
                 gpu->name().c_str(), synced.message().c_str());
  if (state->sessions.deviceMirror == this)
    state->sessions.deviceMirror = nullptr;
}

Status DeviceSteps::attach(CheckpointState &checkpoint,
                           std::vector<std::shared_ptr<Parameter>> parameters) {
  if (checkpoint.sessions.deviceMirror)
    return Status::error("the checkpoint state is already used by a "
                         "training session on a device");
  state = &checkpoint;
  params = std::move(parameters);
  mirrors.resize(4 * params.size());
  state->sessions.deviceMirror = this;
  return Status::ok();
}

int DeviceSteps::mirrorSlot(ArgumentRole role) {
  switch (role) {
  case ArgumentRole::Parameter:
    return 0;
  case ArgumentRole::GradientBuffer:
    return 1;
  case ArgumentRole::FirstMoment:
    return 2;
  default: // SecondMoment
    return 3;
  }
}

Result<DeviceSteps::Mirror *>
DeviceSteps::stateArgument(const ArgumentSpec &argument, Tensor &host) {
  if (argument.parameter < 0 || size_t(argument.parameter) >= params.size())
    return Status::error("argument '" + argument.name +
                         "' names no parameter of the model");
  Parameter &param = *params[argument.parameter];
  Mirror &mirror = mirrors[4 * argument.parameter + mirrorSlot(argument.role)];
  size_t bytes = host.byteSize();
  if (!mirror.buffer.address) {
    Result<DeviceBuffer> buffer = gpu->allocate(
        bytes ? bytes : 1, std::string(argumentRoleName(argument.role)) + " '" +
                               argument.name + "'");
    if (!buffer)
      return buffer.getStatus();
    mirror.buffer = *buffer;
  } else if (mirror.buffer.bytes < bytes) {
    return Status::error("the " + std::string(argumentRoleName(argument.role)) +
                         " '" + argument.name + "' grew to " +
                         std::to_string(bytes) +
                         " bytes on the host since the session started");
  }
  mirror.role = argument.role;
  mirror.host = &host;
  mirror.version = argument.role == ArgumentRole::Parameter ? &param.version
                   : argument.role == ArgumentRole::GradientBuffer
                       ? &param.gradientVersion
                       : nullptr;
  bool hostWrote = mirror.version && *mirror.version != mirror.uploadedVersion;
  if (!mirror.uploaded || hostWrote) {
    if (bytes)
      ODT_RETURN_IF_ERROR(
          gpu->copyToDevice(mirror.buffer.address, host.data(), bytes));
    mirror.uploaded = true;
    mirror.uploadedVersion = mirror.version ? *mirror.version : 0;
    mirror.deviceNewer = false;
    count.stateBytesUploaded += bytes;
  }
  return &mirror;
}

Status DeviceSteps::stage(ShapedStep &step, size_t index,
                          const ArgumentSpec &argument, const Tensor &host) {
  Staged &staged = step.staged[index];
  size_t bytes = host.byteSize();
  if (bytes > staged.capacity || !staged.device.address) {
    // Only the overflow buffers grow (a step with a graph keeps its shapes).
    if (step.graph.executable)
      return Status::error("internal error: a captured step's buffers would "
                           "move");
    if (staged.device.address)
      ODT_RETURN_IF_ERROR(gpu->free(staged.device.address));
    if (staged.pinned.address)
      ODT_RETURN_IF_ERROR(gpu->freePinned(staged.pinned.address));
    staged = Staged();
    size_t capacity = bytes ? bytes : 1;
    std::string purpose = std::string(argumentRoleName(argument.role)) + " '" +
                          argument.name + "'";
    Result<DeviceBuffer> device = gpu->allocate(capacity, purpose);
    if (!device)
      return device.getStatus();
    staged.device = *device;
    Result<PinnedBuffer> pinned = gpu->allocatePinned(capacity, purpose);
    if (!pinned)
      return pinned.getStatus();
    staged.pinned = *pinned;
    staged.capacity = capacity;
  }
  staged.bytes = bytes;
  staged.copiedIn = isStagedIn(argument);
  staged.copiedOut = isStagedOut(argument);
  staged.deviceSource = 0;
  if (host.onDevice()) {
    // Module::run took it as an input of this device.
    if (!staged.copiedIn || staged.copiedOut)
      return Status::error(std::string(argumentRoleName(argument.role)) + " '" +
                           argument.name +
                           "' is in device memory, but the step writes it: "
                           "only inputs may be");
    // Checked at every call: the caller may pass another allocation.
    if (bytes)
      if (Status own = gpu->checkOwnMemory(
              reinterpret_cast<uintptr_t>(host.data()), bytes);
          !own)
        return own.withContext("input '" + argument.name + "'");
    staged.copiedIn = false;
    staged.deviceSource = reinterpret_cast<uintptr_t>(host.data());
    return Status::ok();
  }
  if (staged.copiedIn && bytes)
    std::memcpy(staged.pinned.address, host.data(), bytes);
  return Status::ok();
}

void DeviceSteps::deliverPending() {
  if (!pending.active)
    return;
  pending.active = false;
  for (auto &[host, staged] : pending.outputs)
    std::memcpy(host->data(), staged->pinned.address, staged->bytes);
  if (pending.finished)
    pending.finished();
}

Status DeviceSteps::finishPending() {
  if (pending.active) {
    ++count.waits;
    Status waited = gpu->synchronize();
    if (waited)
      deliverPending();
    else
      pendingFailure = waited.withContext(std::string(entryName(pending.kind)) +
                                          " (finished later)");
    pending.active = false;
  }
  Status failure = std::move(pendingFailure);
  pendingFailure = Status::ok();
  return failure;
}

Status DeviceSteps::run(EntryKind kind, const EntryCall &call,
                        std::function<void()> finished) {
  if (!state)
    return Status::error("the device steps are not attached to a state");
  // A step of the same kind left running reads the staging buffers this
  // call is about to fill, and only one step is left running at a time:
  // those finish first. (Another kind's is ordered before this one on the
  // stream and finishes with its wait.)
  if ((pending.active && (pending.kind == kind || finished)) ||
      !pendingFailure.isOk())
    ODT_RETURN_IF_ERROR(finishPending());
  const EntryPointSpec &entry = call.spec();
  const char *what = entryName(kind);
  Step &step = steps[static_cast<int>(kind)];
  size_t argumentCount = entry.arguments.size();
  for (size_t i = 0; i < argumentCount; ++i)
    if (!call.argument(i))
      return Status::error(std::string(what) + ": argument '" +
                           entry.arguments[i].name + "' is not bound");

  // The per-call arguments' shapes choose the buffers and the graph.
  step.shapes.clear();
  for (size_t i = 0; i < argumentCount; ++i) {
    if (isStateRole(entry.arguments[i].role))
      continue;
    const Shape &shape = call.argument(i)->shape();
    // Where it is, too: a graph copies in from the host what lives there.
    step.shapes.push_back(call.argument(i)->device());
    step.shapes.push_back(static_cast<int64_t>(shape.size()));
    step.shapes.insert(step.shapes.end(), shape.begin(), shape.end());
  }
  // (The graphs hold the staged buffers' addresses, not the elements':
  // the vector may move them.)
  ShapedStep *match = nullptr;
  for (ShapedStep &candidate : step.shaped)
    if (candidate.shapes == step.shapes)
      match = &candidate;
  if (!match && step.shaped.size() < kMaxShapesPerStep) {
    step.shaped.emplace_back();
    match = &step.shaped.back();
    match->shapes = step.shapes;
  }
  ShapedStep &shaped = match ? *match : step.overflow;
  bool canCapture = &shaped != &step.overflow;
  shaped.staged.resize(argumentCount);
  shaped.arguments.resize(argumentCount);

  ODT_RETURN_IF_ERROR(gpu->makeCurrent());
  written.clear();
  for (size_t i = 0; i < argumentCount; ++i) {
    const ArgumentSpec &argument = entry.arguments[i];
    Tensor &host = *call.argument(i);
    shaped.arguments[i].shape = host.shape();
    if (isStateRole(argument.role)) {
      Result<Mirror *> mirror = stateArgument(argument, host);
      if (!mirror)
        return mirror.getStatus().withContext(what);
      shaped.arguments[i].address = (*mirror)->buffer.address;
      if (argument.writes)
        written.push_back(*mirror);
      continue;
    }
    if (Status staged = stage(shaped, i, argument, host); !staged)
      return staged.withContext(what);
    shaped.arguments[i].address = shaped.staged[i].device.address;
  }

  // The whole step as the stream sees it: copies in, launches, copies out.
  auto enqueue = [&]() -> Status {
    for (const Staged &staged : shaped.staged)
      if (staged.bytes && staged.copiedIn)
        ODT_RETURN_IF_ERROR(gpu->copyToDevice(
            staged.device.address, staged.pinned.address, staged.bytes));
    ODT_RETURN_IF_ERROR(runner->call(kind, shaped.arguments));
    for (const Staged &staged : shaped.staged)
      if (staged.bytes && staged.copiedOut)
        ODT_RETURN_IF_ERROR(gpu->enqueueCopyToHost(
            staged.pinned.address, staged.device.address, staged.bytes));
    return Status::ok();
  };

  // Inputs in the device's memory: copied into their buffers ahead of the
  // step, on its stream (a graph holds only the buffers' addresses).
  for (const Staged &staged : shaped.staged)
    if (staged.bytes && staged.deviceSource)
      if (Status copied = gpu->enqueueCopyOnDevice(
              staged.device.address, staged.deviceSource, staged.bytes);
          !copied)
        return copied.withContext(what);

  // Whatever happens from here, the step may have written its state.
  for (Mirror *mirror : written)
    mirror->deviceNewer = true;
  Status ran = Status::ok();
  if (shaped.graph.executable) {
    ran = gpu->replayGraph(shaped.graph);
    ++count.graphReplays;
  } else if (shaped.ranEagerly && canCapture) {
    // The eager call left the runner every block the step needs: the
    // capture allocates nothing.
    runner->setCapturing(true);
    Result<StepGraph> captured = gpu->captureGraph(enqueue);
    runner->setCapturing(false);
    if (!captured)
      return captured.getStatus().withContext(what);
    ++count.graphCaptures;
    shaped.graph = *captured;
    ran = gpu->replayGraph(shaped.graph);
    ++count.graphReplays;
  } else {
    ran = enqueue();
    shaped.ranEagerly = ran.isOk();
    ++count.eagerRuns;
  }
  if (ran && finished) {
    // Waited for by the next call or reader: its outputs and `finished`
    // are delivered then.
    pending.active = true;
    pending.kind = kind;
    pending.finished = std::move(finished);
    pending.outputs.clear();
    for (size_t i = 0; i < argumentCount; ++i)
      if (shaped.staged[i].bytes && shaped.staged[i].copiedOut)
        pending.outputs.emplace_back(call.argument(i), &shaped.staged[i]);
  } else {
    if (ran) {
      ++count.waits;
      ran = gpu->synchronize();
    }
    if (!ran) {
      // A step left running before this one shared the wait: its outputs
      // are lost with it.
      pending.active = false;
      return ran.withContext(what);
    }
    // The wait covered the step left running before this one, if any.
    deliverPending();
    for (size_t i = 0; i < argumentCount; ++i)
      if (shaped.staged[i].bytes && shaped.staged[i].copiedOut)
        std::memcpy(call.argument(i)->data(), shaped.staged[i].pinned.address,
                    shaped.staged[i].bytes);
  }
  // A parameter the step updated has a new version (what a host-side copy
  // derived from it must follow); the device holds that version.
  for (Mirror *mirror : written)
    if (mirror->role == ArgumentRole::Parameter) {
      ++*mirror->version;
      mirror->uploadedVersion = *mirror->version;
    }
  return Status::ok();
}

Result<DevicePtr> DeviceSteps::stateBuffer(ArgumentRole role,
                                           int parameter) const {
  size_t index = 4 * static_cast<size_t>(parameter) + mirrorSlot(role);
  if (parameter < 0 || index >= mirrors.size() ||
      !mirrors[index].buffer.address)
    return Status::error(std::string("no step has used the ") +
                         argumentRoleName(role) + " of parameter " +
                         std::to_string(parameter) + " yet");
  return mirrors[index].buffer.address;
}

Status DeviceSteps::copyToHost() {
  // A step left running may still write the state (and owes its outputs).
  ODT_RETURN_IF_ERROR(finishPending());
  for (Mirror &mirror : mirrors) {
    if (!mirror.deviceNewer)
      continue;
    // The host replaced the values since: they are the newer ones.
    if (mirror.version && *mirror.version != mirror.uploadedVersion) {
      mirror.deviceNewer = false;
      continue;
    }
    size_t bytes = mirror.host->byteSize();
    if (bytes)
      ODT_RETURN_IF_ERROR(
          gpu->copyToHost(mirror.host->data(), mirror.buffer.address, bytes)
              .withContext("copying the session's state back from " +
                           gpu->name()));
    mirror.deviceNewer = false;
    count.stateBytesDownloaded += bytes;
  }
  return Status::ok();
}

} // namespace cuda
} // namespace odt
