// CheckpointState: parameters, optimizer state and properties, read from and
// written to ONNX Runtime's flatbuffer checkpoint (ODTC v2, ORT-FACTS.md §4).

#ifndef ODT_RUNTIME_CHECKPOINT_H
#define ODT_RUNTIME_CHECKPOINT_H

#include "Status.h"
#include "Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace odt {

/// One model parameter (ORT's training Parameter). `data` is empty while the
/// state is nominal.
struct Parameter {
  std::string name;
  DataType dtype = DataType::Float;
  Tensor data;
  /// Gradient accumulation buffer, allocated by the Module for trainable
  /// parameters (empty until then).
  Tensor gradient;
  bool requiresGrad = true;
  /// Incremented whenever `data` changes (copyFrom, OptimizerStep,
  /// CopyBufferToParameters, UpdateParameter): a session's copies derived
  /// from the values (the kept panels of its matrix products) are refilled
  /// when it moved. Code that writes `data` in place must increment it.
  uint64_t version = 0;
  /// Incremented whenever the host writes `gradient` (resetGrad, setGrad):
  /// a device copy of the gradient is refreshed when it moved.
  uint64_t gradientVersion = 0;

  /// Zeroes the gradient buffer (no-op for frozen parameters).
  Status resetGrad();
  /// Copies `gradient` into the gradient buffer (same dtype and shape).
  Status setGrad(const Tensor &value);
  /// Copies the parameter's values into `destination` (same dtype and
  /// element count; the buffer is the caller's).
  Status copyTo(Tensor &destination) const;
  /// Replaces the parameter's values with `source` (same dtype and element
  /// count as the parameter's shape). The buffer keeps its address.
  Status copyFrom(const Tensor &source);
};

/// Per-parameter optimizer state: "momentum0", "momentum1", ...
struct ParameterOptimizerState {
  std::map<std::string, Tensor> momentums;
};

struct OptimizerGroupState {
  std::string name = "group0";
  int64_t step = 0;
  float initialLearningRate = 0.001f;
  std::map<std::string, ParameterOptimizerState> parameterStates;
};

using PropertyValue = std::variant<int64_t, float, std::string>;

/// Newer values of a state's tensors than the host's, held elsewhere: a
/// training session on a CUDA device keeps its parameters, gradients and
/// moments there and copies them back only when the host reads them.
class DeviceMirror {
public:
  virtual ~DeviceMirror() = default;
  /// Copies every value the device holds newer than the host's into the
  /// state's host tensors.
  virtual Status copyToHost() = 0;
};

/// The sessions (Modules) using a state now, and the device mirror of the
/// one that runs on a device: that session needs the state to itself
/// (another would not see the device's values). A copied or moved state
/// starts with none: a session is bound to the state object it was made on.
struct StateSessions {
  DeviceMirror *deviceMirror = nullptr;
  int count = 0;
  StateSessions() = default;
  StateSessions(const StateSessions &) {}
  StateSessions &operator=(const StateSessions &) { return *this; }
};

struct CheckpointState {
  /// In file order (ORT sorts by name): trainable parameters first, then
  /// frozen ones. The Module orders them by the training graph instead.
  std::vector<std::shared_ptr<Parameter>> parameters;
  bool isNominal = false;
  std::vector<OptimizerGroupState> optimizerGroups;
  std::map<std::string, PropertyValue> properties;
  StateSessions sessions;

  /// Makes the host tensors current (copies back what a device holds newer):
  /// every reader of parameter, gradient or moment values calls it first.
  Status synchronizeHost() const {
    return sessions.deviceMirror ? sessions.deviceMirror->copyToHost()
                                 : Status::ok();
  }

  /// nullptr if no parameter has this name.
  std::shared_ptr<Parameter> findParameter(const std::string &name) const;
  /// nullptr if there is no group of this name.
  OptimizerGroupState *findOptimizerGroup(const std::string &name);
};

/// Reads a checkpoint file. External data, if the checkpoint has any, is read
/// from `<path>.data`. Rejects truncated, corrupt and foreign files (failed
/// flatbuffers verification, wrong identifier or version, sizes that do not
/// match dims and dtype) with a message naming the file and the fault.
Result<CheckpointState> loadCheckpoint(const std::string &path);

/// Reads a checkpoint held in memory. `externalDataPath` names the file of
/// external tensor data, needed only if the checkpoint has external data.
Result<CheckpointState>
loadCheckpointFromBuffer(const void *data, size_t size,
                         const std::string &externalDataPath = "");

/// Writes `state` to `path` atomically: a temporary file in the same folder,
/// fsync, rename. On any failure the previous file at `path` is untouched.
/// Tensors and properties are written sorted by name, as ORT does.
Status saveCheckpoint(const CheckpointState &state, const std::string &path,
                      bool includeOptimizerState);

/// Total tensor bytes above which saveCheckpoint moves tensors to an external
/// data file, as ORT does (1800 MiB, about 1.8 GB): a flatbuffer cannot reach
/// 2 GiB.
constexpr uint64_t kDefaultExternalDataThreshold = uint64_t(1800) * 1024 * 1024;

/// saveCheckpoint with an explicit external data threshold. When the tensors
/// (parameters, and momentums if included) hold more than
/// `externalDataThreshold` bytes in all, every tensor of 64 bytes or more is
/// written to `<path>.data` (offsets aligned to 4 bytes, 8 for int64 and
/// double) and the checkpoint records its offset; smaller ones stay inline.
/// The .data file and the checkpoint are both written to temporary files
/// first and renamed into place only when both are complete.
Status saveCheckpoint(const CheckpointState &state, const std::string &path,
                      bool includeOptimizerState,
                      uint64_t externalDataThreshold);

} // namespace odt

#endif // ODT_RUNTIME_CHECKPOINT_H
