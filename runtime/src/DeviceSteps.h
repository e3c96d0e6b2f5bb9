// DeviceSteps: a training session's steps on a CUDA device, with the
// session's state living there.
//
// The parameters, their gradients and the optimizer's moments get one
// device buffer each, uploaded when a step first uses them and again only
// when the host wrote them since (a parameter's `version`, a gradient's
// `gradientVersion`). What a step writes there stays on the device: it is
// copied back only when the host reads the state (checkpoint save,
// GetParameter, CopyParametersToBuffer, export: CheckpointState::
// synchronizeHost, which calls this class as the state's DeviceMirror), and
// when the session ends.
//
// Everything else a step takes (its inputs and outputs, the lazy-reset
// flag, the random state, the learning rate, the step count, the updated
// flag) is staged through page-locked host memory in buffers kept per
// argument; an input the caller gives in this device's memory
// (Tensor::onDevice) is copied on the device into its buffer instead,
// before the step's graph, which never holds the caller's address. A step's
// first call with given shapes runs eagerly (its host code launches the kernels
// one by one and allocates its intermediates); its second call with the same
// shapes captures the step (the staging copies in, every launch, the copies
// out) as one CUDA graph, and every later call replays it: one graph launch and
// one wait per step.

#ifndef ODT_RUNTIME_DEVICESTEPS_H
#define ODT_RUNTIME_DEVICESTEPS_H

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "CudaDriver.h"
#include "KernelRunner.h"

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace odt {
namespace cuda {

class DeviceSteps final : public DeviceMirror {
public:
  /// Input shapes a step keeps staging buffers and a graph for; calls with
  /// other shapes beyond these run eagerly through one set of buffers.
  static constexpr size_t kMaxShapesPerStep = 8;

  /// `device` is open and `model` a GPU build with kernels for its chip.
  static Result<std::unique_ptr<DeviceSteps>>
  create(std::unique_ptr<Device> device, std::shared_ptr<CompiledModel> model);
  /// Copies back what the device holds newer than the host (the state
  /// outlives the session) and leaves the state.
  ~DeviceSteps() override;
  DeviceSteps(const DeviceSteps &) = delete;
  DeviceSteps &operator=(const DeviceSteps &) = delete;

  /// Becomes the mirror of `state`, whose parameters in the model's order
  /// are `parameters`.
  Status attach(CheckpointState &state,
                std::vector<std::shared_ptr<Parameter>> parameters);

  /// Runs entry point `kind` with the host tensors `call` holds, bound as a
  /// CPU call would be: the state's tensors are replaced by their device
  /// copies, the others staged in and (when the step writes them) out.
  ///
  /// With `finished` given, the call does not wait for the step: its
  /// outputs reach `call`'s tensors, and `finished` runs, when the next
  /// call waits anyway (a step of another kind waits for both at once) or
  /// when someone needs them (finishPending). OptimizerStep uses it: its
  /// only output, the updated flag, is wanted at the next OptimizerStep,
  /// so a training iteration waits once, in TrainStep.
  Status run(EntryKind kind, const EntryCall &call,
             std::function<void()> finished = nullptr);
  /// Waits for a step `run` left running and delivers its outputs; its
  /// failure, if it failed, comes back here (and from the next call).
  Status finishPending();
  /// finishPending for a caller that cannot return its failure (a
  /// destructor, the step count): the next call returns it instead.
  void finishPendingLater() {
    Status failure = finishPending();
    if (!failure.isOk())
      pendingFailure = std::move(failure);
  }

  Status copyToHost() override;

  const Device &device() const { return *gpu; }
  /// The device buffer of a tensor of the state (`role` Parameter,
  /// GradientBuffer, FirstMoment or SecondMoment of model parameter
  /// `parameter`), once a step has used it.
  Result<DevicePtr> stateBuffer(ArgumentRole role, int parameter) const;

  /// What the steps did so far (for tests and reports).
  struct Counters {
    size_t stateBytesUploaded = 0, stateBytesDownloaded = 0;
    size_t eagerRuns = 0, graphCaptures = 0, graphReplays = 0;
    /// Waits for the stream at a step's end (a deferred step's included).
    size_t waits = 0;
  };
  const Counters &counters() const { return count; }

private:
  DeviceSteps() = default;

  /// The device copy of one tensor of the state.
  struct Mirror {
    ArgumentRole role = ArgumentRole::Parameter;
    DeviceBuffer buffer;
    Tensor *host = nullptr;
    /// The host's write counter of the tensor (null: the host never writes
    /// it after the session starts, as the moments).
    uint64_t *version = nullptr;
    uint64_t uploadedVersion = 0;
    bool uploaded = false;
    /// A step wrote the device copy since the host's was last current.
    bool deviceNewer = false;
  };
  /// A per-call argument's buffers: device memory and its page-locked host
  /// staging, of `capacity` bytes.
  struct Staged {
    DeviceBuffer device;
    PinnedBuffer pinned;
    size_t capacity = 0;
    size_t bytes = 0;
    /// Copied in before the step (it reads the argument), out after it
    /// (it writes it). A state argument has neither: it is not staged.
    bool copiedIn = false, copiedOut = false;
    /// An input in this device's memory: copied from there on the device
    /// (not copiedIn: no host staging), outside the step's graph.
    DevicePtr deviceSource = 0;
  };
  /// A step's calls with one set of shapes: their staging buffers, and
  /// the graph once captured (whose copies use those buffers).
  struct ShapedStep {
    /// The per-call arguments' places and shapes (device or -1, rank,
    /// dims, ...) these calls have.
    std::vector<int64_t> shapes;
    std::vector<Staged> staged;
    std::vector<DeviceTensor> arguments;
    bool ranEagerly = false;
    StepGraph graph;
  };
  struct Step {
    /// At most kMaxShapesPerStep (few: searched in order).
    std::vector<ShapedStep> shaped;
    /// The shapes past kMaxShapesPerStep: never captured.
    ShapedStep overflow;
    std::vector<int64_t> shapes;
  };

  /// A step left running: its staged outputs to copy to the host, and
  /// what to do then.
  struct Pending {
    bool active = false;
    EntryKind kind = EntryKind::Train;
    std::vector<std::pair<Tensor *, const Staged *>> outputs;
    std::function<void()> finished;
  };
  /// Delivers the pending step's outputs once the stream has finished it.
  void deliverPending();

  Result<Mirror *> stateArgument(const ArgumentSpec &argument, Tensor &host);
  Status stage(ShapedStep &step, size_t index, const ArgumentSpec &argument,
               const Tensor &host);

  // Destroyed in reverse: the runner before the device it uses.
  std::unique_ptr<Device> gpu;
  std::shared_ptr<CompiledModel> model;
  std::unique_ptr<KernelRunner> runner;
  CheckpointState *state = nullptr;
  std::vector<std::shared_ptr<Parameter>> params;
  /// Four per model parameter: its values, gradient and two moments.
  std::vector<Mirror> mirrors;
  static int mirrorSlot(ArgumentRole role);
  Step steps[3];
  /// Kept, like the buffers below, so that a step allocates nothing once
  /// warm.
  Pending pending;
  std::vector<Mirror *> written;
  Status pendingFailure = Status::ok();
  Counters count;
};

} // namespace cuda
} // namespace odt

#endif // ODT_RUNTIME_DEVICESTEPS_H
