// The C API (runtime/include/odt/odt.h) over the C++ runtime. Every entry
// point catches everything: nothing throws or aborts across the C boundary.

#include "odt/odt.h"

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "TrainingSession.h"

#include <atomic>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <string>
#include <vector>

struct OdtStatus {
  std::string message;
};

struct OdtValue {
  odt::Tensor tensor;
};

struct OdtCheckpointState {
  odt::CheckpointState state;
};

struct OdtTrainingSession {
  std::unique_ptr<odt::TrainingSession> session;
  // Names returned to C callers live here.
  std::vector<std::string> trainingInputs, trainingOutputs, evalInputs,
      evalOutputs;
  // Scratch vectors reused by steps.
  std::vector<odt::Tensor> inputs, outputs;
  // Held by the call that uses the session: a session is not thread-safe,
  // and a second thread's call is refused instead of racing.
  std::atomic<bool> inUse{false};
};

namespace {

OdtStatus *makeStatus(const std::string &message) {
  try {
    return new OdtStatus{message};
  } catch (...) {
    // Out of memory while reporting an error: a static status with a fixed
    // message (never released: OdtReleaseStatus ignores it).
    static OdtStatus outOfMemory{"out of memory"};
    return &outOfMemory;
  }
}

OdtStatus *toStatus(const odt::Status &status) {
  return status.isOk() ? nullptr : makeStatus(status.message());
}

/// Runs `body`, turning exceptions into statuses.
template <typename Body> OdtStatus *guard(const char *function, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeStatus(std::string(function) + ": out of memory");
  } catch (const std::exception &error) {
    return makeStatus(std::string(function) +
                      ": internal error: " + error.what());
  } catch (...) {
    return makeStatus(std::string(function) + ": internal error");
  }
}

#define ODT_REQUIRE(condition, function, message)                              \
  do {                                                                         \
    if (!(condition))                                                          \
      return makeStatus(std::string(function) + ": " + (message));             \
  } while (0)

/// Exclusive use of a session for the duration of one call.
class SessionUse {
public:
  explicit SessionUse(OdtTrainingSession *session) : session(session) {
    bool expected = false;
    acquired = session->inUse.compare_exchange_strong(
        expected, true, std::memory_order_acquire);
  }
  ~SessionUse() {
    if (acquired)
      session->inUse.store(false, std::memory_order_release);
  }
  SessionUse(const SessionUse &) = delete;
  SessionUse &operator=(const SessionUse &) = delete;
  bool acquired;

private:
  OdtTrainingSession *session;
};

// After ODT_REQUIRE(session, ...): refuses the call while another thread is
// inside one on the same session.
#define ODT_USE_SESSION(session, function)                                     \
  SessionUse sessionUse(session);                                              \
  if (!sessionUse.acquired)                                                    \
  return makeStatus(std::string(function) +                                    \
                    ": the session is in use by another thread (a session "    \
                    "is not thread-safe: give each thread its own, or "        \
                    "serialize the calls)")

// Enum values from C callers may be any integer: they are read as integers,
// never used as enum values before they are checked.
template <typename Enum> int32_t enumCode(Enum value) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "C enums are int-sized");
  int32_t code;
  std::memcpy(&code, &value, sizeof code);
  return code;
}

bool isSupportedType(OdtDataType type) {
  return odt::isKnownFixedSizeType(enumCode(type));
}

OdtStatus *checkShape(const char *function, const int64_t *shape, size_t rank,
                      odt::Shape &out) {
  ODT_REQUIRE(rank == 0 || shape, function, "shape is NULL");
  out.assign(shape, shape + rank);
  for (int64_t dim : out)
    ODT_REQUIRE(dim >= 0, function,
                "dims must be >= 0, got " + odt::formatShape(out));
  ODT_REQUIRE(odt::numElements(out) >= 0, function,
              "the shape " + odt::formatShape(out) + " is too large");
  return nullptr;
}

/// A caller's buffer for a tensor of `type` and `shape`: a supported type,
/// a valid shape (into `dims`), exactly `byteSize` bytes, and `data` (named
/// `dataName`) not NULL unless the tensor is empty.
OdtStatus *checkCallerBuffer(const char *function, OdtDataType type,
                             const int64_t *shape, size_t rank,
                             const void *data, const char *dataName,
                             size_t byteSize, odt::Shape &dims) {
  ODT_REQUIRE(isSupportedType(type), function,
              "unsupported data type " + std::to_string(enumCode(type)));
  if (OdtStatus *status = checkShape(function, shape, rank, dims))
    return status;
  size_t needed = static_cast<size_t>(odt::numElements(dims)) *
                  odt::dataTypeSize(static_cast<odt::DataType>(type));
  ODT_REQUIRE(byteSize == needed, function,
              "the buffer holds " + std::to_string(byteSize) + " bytes, " +
                  odt::formatShape(dims) + " of " +
                  odt::dataTypeName(static_cast<odt::DataType>(type)) +
                  " needs " + std::to_string(needed));
  ODT_REQUIRE(data || needed == 0, function,
              std::string(dataName) + " is NULL");
  return nullptr;
}

OdtStatus *createSession(const char *function, OdtCheckpointState *state,
                         odt::Result<std::shared_ptr<odt::CompiledModel>> model,
                         OdtTrainingSession **out,
                         const odt::cuda::DeviceSpec &device = {}) {
  ODT_REQUIRE(state && out, function, "state and out must not be NULL");
  *out = nullptr;
  if (!model)
    return toStatus(model.getStatus());
  auto session = odt::TrainingSession::create(state->state, *model, device);
  if (!session)
    return toStatus(session.getStatus());
  auto result = std::make_unique<OdtTrainingSession>();
  result->session = session.take();
  odt::Module &module = result->session->module();
  result->trainingInputs = module.trainingInputNames();
  result->trainingOutputs = module.trainingOutputNames();
  result->evalInputs = module.evalInputNames();
  result->evalOutputs = module.evalOutputNames();
  *out = result.release();
  return nullptr;
}

OdtStatus *getCount(const char *function, const OdtTrainingSession *session,
                    const std::vector<std::string> OdtTrainingSession::*names,
                    size_t *out) {
  ODT_REQUIRE(session && out, function, "session and out must not be NULL");
  *out = (session->*names).size();
  return nullptr;
}

OdtStatus *getName(const char *function, const OdtTrainingSession *session,
                   const std::vector<std::string> OdtTrainingSession::*names,
                   size_t index, const char **out) {
  ODT_REQUIRE(session && out, function, "session and out must not be NULL");
  const std::vector<std::string> &list = session->*names;
  ODT_REQUIRE(index < list.size(), function,
              "index " + std::to_string(index) + " is out of range (" +
                  std::to_string(list.size()) + " names)");
  *out = list[index].c_str();
  return nullptr;
}

enum class StepKind { Train, Eval };

OdtStatus *runStep(const char *function, StepKind kind,
                   OdtTrainingSession *session, size_t inputsLen,
                   const OdtValue *const *inputs, size_t outputsLen,
                   OdtValue **outputs) {
  ODT_REQUIRE(session, function, "session is NULL");
  ODT_USE_SESSION(session, function);
  ODT_REQUIRE(inputsLen == 0 || inputs, function, "inputs is NULL");
  ODT_REQUIRE(outputsLen == 0 || outputs, function, "outputs is NULL");
  const std::vector<std::string> &outputNames =
      kind == StepKind::Train ? session->trainingOutputs : session->evalOutputs;
  ODT_REQUIRE(outputsLen == outputNames.size(), function,
              "expected " + std::to_string(outputNames.size()) +
                  " outputs, got " + std::to_string(outputsLen));
  session->inputs.resize(inputsLen);
  for (size_t i = 0; i < inputsLen; ++i) {
    ODT_REQUIRE(inputs[i], function, "input " + std::to_string(i) + " is NULL");
    // A view: the step reads the caller's buffer, no copy.
    const odt::Tensor &tensor = inputs[i]->tensor;
    session->inputs[i].becomeView(tensor.dtype(), tensor.shape(),
                                  const_cast<void *>(tensor.data()),
                                  tensor.device());
  }
  // Caller-provided outputs are written in place; the rest are allocated.
  session->outputs.resize(outputsLen);
  for (size_t i = 0; i < outputsLen; ++i) {
    ODT_REQUIRE(!outputs[i] || !outputs[i]->tensor.onDevice(), function,
                "output " + std::to_string(i) +
                    " is in device memory: a step's outputs are written to "
                    "host memory");
    if (outputs[i])
      session->outputs[i].becomeView(outputs[i]->tensor.dtype(),
                                     outputs[i]->tensor.shape(),
                                     outputs[i]->tensor.data());
    else
      session->outputs[i] = odt::Tensor();
  }
  odt::Status status =
      kind == StepKind::Train
          ? session->session->trainStep(session->inputs, session->outputs)
          : session->session->evalStep(session->inputs, session->outputs);
  if (!status)
    return toStatus(status);
  // Caller buffers were written in place; the others are handed over.
  for (size_t i = 0; i < outputsLen; ++i)
    if (!outputs[i])
      outputs[i] = new OdtValue{std::move(session->outputs[i])};
  return nullptr;
}

} // namespace

extern "C" {

const char *OdtGetErrorMessage(const OdtStatus *status) {
  return status ? status->message.c_str() : "";
}

void OdtReleaseStatus(OdtStatus *status) {
  if (!status || status->message == "out of memory")
    return; // NULL, or the static out-of-memory status
  delete status;
}

uint32_t OdtGetApiVersion(void) { return ODT_API_VERSION; }

// ODT_VERSION_STRING: the root file VERSION, through runtime/CMakeLists.txt.
const char *OdtGetVersionString(void) { return ODT_VERSION_STRING; }

// ---- values ----------------------------------------------------------------

OdtStatus *OdtCreateTensor(OdtDataType type, const int64_t *shape, size_t rank,
                           OdtValue **out) {
  return guard("OdtCreateTensor", [&]() -> OdtStatus * {
    const char *function = "OdtCreateTensor";
    ODT_REQUIRE(out, function, "out is NULL");
    *out = nullptr;
    ODT_REQUIRE(isSupportedType(type), function,
                "unsupported data type " + std::to_string(enumCode(type)));
    odt::Shape dims;
    if (OdtStatus *status = checkShape(function, shape, rank, dims))
      return status;
    odt::Tensor tensor =
        odt::Tensor::zeros(static_cast<odt::DataType>(type), dims);
    ODT_REQUIRE(!tensor.empty(), function,
                "cannot allocate " + odt::formatShape(dims));
    *out = new OdtValue{std::move(tensor)};
    return nullptr;
  });
}

OdtStatus *OdtCreateTensorWithData(OdtDataType type, const int64_t *shape,
                                   size_t rank, void *data, size_t byteSize,
                                   OdtValue **out) {
  return guard("OdtCreateTensorWithData", [&]() -> OdtStatus * {
    const char *function = "OdtCreateTensorWithData";
    ODT_REQUIRE(out, function, "out is NULL");
    *out = nullptr;
    odt::Shape dims;
    if (OdtStatus *status = checkCallerBuffer(function, type, shape, rank,
                                              data, "data", byteSize, dims))
      return status;
    *out = new OdtValue{
        odt::Tensor::view(static_cast<odt::DataType>(type), dims, data)};
    return nullptr;
  });
}

OdtStatus *OdtCreateTensorWithDeviceData(OdtDataType type, const int64_t *shape,
                                         size_t rank, const char *device,
                                         void *deviceData, size_t byteSize,
                                         OdtValue **out) {
  return guard("OdtCreateTensorWithDeviceData", [&]() -> OdtStatus * {
    const char *function = "OdtCreateTensorWithDeviceData";
    ODT_REQUIRE(out, function, "out is NULL");
    *out = nullptr;
    ODT_REQUIRE(device, function, "device is NULL");
    odt::Result<odt::cuda::DeviceSpec> spec =
        odt::cuda::parseDeviceSpec(device);
    if (!spec)
      return toStatus(spec.getStatus().withContext(function));
    ODT_REQUIRE(spec->kind == odt::cuda::DeviceSpec::Kind::CUDA, function,
                std::string("device '") + device +
                    "' is not a CUDA device (host memory: "
                    "OdtCreateTensorWithData)");
    odt::Shape dims;
    if (OdtStatus *status =
            checkCallerBuffer(function, type, shape, rank, deviceData,
                              "device_data", byteSize, dims))
      return status;
    *out = new OdtValue{odt::Tensor::deviceView(
        static_cast<odt::DataType>(type), dims, deviceData, spec->ordinal)};
    return nullptr;
  });
}

OdtStatus *OdtGetTensorDevice(const OdtValue *value, int *out) {
  ODT_REQUIRE(value && out, "OdtGetTensorDevice",
              "value and out must not be NULL");
  *out = value->tensor.device();
  return nullptr;
}

OdtStatus *OdtGetTensorDataType(const OdtValue *value, OdtDataType *out) {
  ODT_REQUIRE(value && out, "OdtGetTensorDataType",
              "value and out must not be NULL");
  *out = static_cast<OdtDataType>(value->tensor.dtype());
  return nullptr;
}

OdtStatus *OdtGetTensorShape(const OdtValue *value, size_t *rank,
                             const int64_t **dims) {
  ODT_REQUIRE(value && rank && dims, "OdtGetTensorShape",
              "value, rank and dims must not be NULL");
  *rank = value->tensor.shape().size();
  *dims = value->tensor.shape().data();
  return nullptr;
}

OdtStatus *OdtGetTensorElementCount(const OdtValue *value, size_t *out) {
  ODT_REQUIRE(value && out, "OdtGetTensorElementCount",
              "value and out must not be NULL");
  *out = static_cast<size_t>(value->tensor.size());
  return nullptr;
}

OdtStatus *OdtGetTensorData(OdtValue *value, void **out) {
  ODT_REQUIRE(value && out, "OdtGetTensorData",
              "value and out must not be NULL");
  *out = value->tensor.data();
  return nullptr;
}

void OdtReleaseValue(OdtValue *value) { delete value; }

// ---- checkpoint state ------------------------------------------------------

OdtStatus *OdtLoadCheckpoint(const char *path, OdtCheckpointState **out) {
  return guard("OdtLoadCheckpoint", [&]() -> OdtStatus * {
    ODT_REQUIRE(path && out, "OdtLoadCheckpoint",
                "path and out must not be NULL");
    *out = nullptr;
    odt::Result<odt::CheckpointState> state = odt::loadCheckpoint(path);
    if (!state)
      return toStatus(state.getStatus());
    *out = new OdtCheckpointState{state.take()};
    return nullptr;
  });
}

OdtStatus *OdtLoadCheckpointFromBuffer(const void *data, size_t size,
                                       OdtCheckpointState **out) {
  return guard("OdtLoadCheckpointFromBuffer", [&]() -> OdtStatus * {
    ODT_REQUIRE(data && out, "OdtLoadCheckpointFromBuffer",
                "data and out must not be NULL");
    *out = nullptr;
    odt::Result<odt::CheckpointState> state =
        odt::loadCheckpointFromBuffer(data, size);
    if (!state)
      return toStatus(state.getStatus());
    *out = new OdtCheckpointState{state.take()};
    return nullptr;
  });
}

OdtStatus *OdtSaveCheckpoint(OdtCheckpointState *state, const char *path,
                             bool includeOptimizerState) {
  return guard("OdtSaveCheckpoint", [&]() -> OdtStatus * {
    ODT_REQUIRE(state && path, "OdtSaveCheckpoint",
                "state and path must not be NULL");
    return toStatus(
        odt::saveCheckpoint(state->state, path, includeOptimizerState));
  });
}

OdtStatus *OdtAddProperty(OdtCheckpointState *state, const char *name,
                          OdtPropertyType type, const void *value) {
  return guard("OdtAddProperty", [&]() -> OdtStatus * {
    const char *function = "OdtAddProperty";
    ODT_REQUIRE(state && name && value, function,
                "state, name and value must not be NULL");
    ODT_REQUIRE(*name, function, "the property name is empty");
    ODT_REQUIRE(std::strncmp(name, "odt.", 4) != 0, function,
                std::string("property names starting with 'odt.' are "
                            "reserved for odt ('") +
                    name + "')");
    int32_t code = enumCode(type);
    switch (code) {
    case ODT_INT_PROPERTY:
      state->state.properties[name] = *static_cast<const int64_t *>(value);
      return nullptr;
    case ODT_FLOAT_PROPERTY:
      state->state.properties[name] = *static_cast<const float *>(value);
      return nullptr;
    case ODT_STRING_PROPERTY:
      state->state.properties[name] =
          std::string(static_cast<const char *>(value));
      return nullptr;
    }
    return makeStatus(std::string(function) + ": unknown property type " +
                      std::to_string(code));
  });
}

OdtStatus *OdtGetProperty(const OdtCheckpointState *state, const char *name,
                          OdtPropertyType *type, const void **value) {
  return guard("OdtGetProperty", [&]() -> OdtStatus * {
    ODT_REQUIRE(state && name && type && value, "OdtGetProperty",
                "state, name, type and value must not be NULL");
    auto it = state->state.properties.find(name);
    ODT_REQUIRE(it != state->state.properties.end(), "OdtGetProperty",
                std::string("no property '") + name + "'");
    if (auto *i = std::get_if<int64_t>(&it->second)) {
      *type = ODT_INT_PROPERTY;
      *value = i;
    } else if (auto *f = std::get_if<float>(&it->second)) {
      *type = ODT_FLOAT_PROPERTY;
      *value = f;
    } else {
      *type = ODT_STRING_PROPERTY;
      *value = std::get<std::string>(it->second).c_str();
    }
    return nullptr;
  });
}

OdtStatus *OdtGetParameterTypeAndShape(const OdtCheckpointState *state,
                                       const char *name, OdtDataType *type,
                                       size_t *rank, const int64_t **dims) {
  return guard("OdtGetParameterTypeAndShape", [&]() -> OdtStatus * {
    ODT_REQUIRE(state && name && type && rank && dims,
                "OdtGetParameterTypeAndShape",
                "state, name, type, rank and dims must not be NULL");
    auto param = state->state.findParameter(name);
    ODT_REQUIRE(param, "OdtGetParameterTypeAndShape",
                std::string("no parameter '") + name + "'");
    *type = static_cast<OdtDataType>(param->dtype);
    *rank = param->data.shape().size();
    *dims = param->data.empty() ? nullptr : param->data.shape().data();
    return nullptr;
  });
}

OdtStatus *OdtUpdateParameter(OdtCheckpointState *state, const char *name,
                              const OdtValue *value) {
  return guard("OdtUpdateParameter", [&]() -> OdtStatus * {
    const char *function = "OdtUpdateParameter";
    ODT_REQUIRE(state && name && value, function,
                "state, name and value must not be NULL");
    auto param = state->state.findParameter(name);
    ODT_REQUIRE(param, function, std::string("no parameter '") + name + "'");
    const odt::Tensor &tensor = value->tensor;
    ODT_REQUIRE(tensor.dtype() == param->dtype, function,
                "parameter '" + param->name + "' is " +
                    odt::dataTypeName(param->dtype) + ", the value is " +
                    odt::dataTypeName(tensor.dtype()));
    if (param->data.empty()) {
      // A nominal parameter gets its first values.
      param->data = tensor.clone();
      ++param->version;
      ODT_REQUIRE(!param->data.empty() || tensor.empty(), function,
                  "out of memory");
      bool complete = true;
      for (const auto &p : state->state.parameters)
        complete &= !p->data.empty();
      if (complete)
        state->state.isNominal = false;
      return nullptr;
    }
    ODT_REQUIRE(tensor.shape() == param->data.shape(), function,
                "parameter '" + param->name + "' has shape " +
                    odt::formatShape(param->data.shape()) + ", the value has " +
                    odt::formatShape(tensor.shape()));
    return toStatus(param->copyFrom(tensor));
  });
}

OdtStatus *OdtGetParameter(const OdtCheckpointState *state, const char *name,
                           OdtValue **out) {
  return guard("OdtGetParameter", [&]() -> OdtStatus * {
    ODT_REQUIRE(state && name && out, "OdtGetParameter",
                "state, name and out must not be NULL");
    *out = nullptr;
    auto param = state->state.findParameter(name);
    ODT_REQUIRE(param, "OdtGetParameter",
                std::string("no parameter '") + name + "'");
    ODT_REQUIRE(!param->data.empty(), "OdtGetParameter",
                "parameter '" + param->name +
                    "' has no values (the state is nominal)");
    if (odt::Status synced = state->state.synchronizeHost(); !synced)
      return toStatus(synced.withContext("OdtGetParameter"));
    odt::Tensor copy = param->data.clone();
    ODT_REQUIRE(!copy.empty(), "OdtGetParameter", "out of memory");
    *out = new OdtValue{std::move(copy)};
    return nullptr;
  });
}

OdtStatus *OdtGetParameterCount(const OdtCheckpointState *state, size_t *out) {
  return guard("OdtGetParameterCount", [&]() -> OdtStatus * {
    ODT_REQUIRE(state && out, "OdtGetParameterCount",
                "state and out must not be NULL");
    *out = state->state.parameters.size();
    return nullptr;
  });
}

OdtStatus *OdtGetParameterName(const OdtCheckpointState *state, size_t index,
                               const char **out) {
  return guard("OdtGetParameterName", [&]() -> OdtStatus * {
    const char *function = "OdtGetParameterName";
    ODT_REQUIRE(state && out, function, "state and out must not be NULL");
    const auto &parameters = state->state.parameters;
    ODT_REQUIRE(index < parameters.size(), function,
                "index " + std::to_string(index) + " is out of range (" +
                    std::to_string(parameters.size()) + " parameters)");
    *out = parameters[index]->name.c_str();
    return nullptr;
  });
}

OdtStatus *OdtGetPropertyCount(const OdtCheckpointState *state, size_t *out) {
  return guard("OdtGetPropertyCount", [&]() -> OdtStatus * {
    ODT_REQUIRE(state && out, "OdtGetPropertyCount",
                "state and out must not be NULL");
    *out = state->state.properties.size();
    return nullptr;
  });
}

OdtStatus *OdtGetPropertyName(const OdtCheckpointState *state, size_t index,
                              const char **out) {
  return guard("OdtGetPropertyName", [&]() -> OdtStatus * {
    const char *function = "OdtGetPropertyName";
    ODT_REQUIRE(state && out, function, "state and out must not be NULL");
    const auto &properties = state->state.properties;
    ODT_REQUIRE(index < properties.size(), function,
                "index " + std::to_string(index) + " is out of range (" +
                    std::to_string(properties.size()) + " properties)");
    *out =
        std::next(properties.begin(), static_cast<long>(index))->first.c_str();
    return nullptr;
  });
}

OdtStatus *OdtGetParameterRequiresGrad(const OdtCheckpointState *state,
                                       const char *name, bool *out) {
  return guard("OdtGetParameterRequiresGrad", [&]() -> OdtStatus * {
    const char *function = "OdtGetParameterRequiresGrad";
    ODT_REQUIRE(state && name && out, function,
                "state, name and out must not be NULL");
    auto param = state->state.findParameter(name);
    ODT_REQUIRE(param, function, std::string("no parameter '") + name + "'");
    *out = param->requiresGrad;
    return nullptr;
  });
}

OdtStatus *OdtGetParameterGradient(const OdtCheckpointState *state,
                                   const char *name, OdtValue **out) {
  return guard("OdtGetParameterGradient", [&]() -> OdtStatus * {
    const char *function = "OdtGetParameterGradient";
    ODT_REQUIRE(state && name && out, function,
                "state, name and out must not be NULL");
    *out = nullptr;
    auto param = state->state.findParameter(name);
    ODT_REQUIRE(param, function, std::string("no parameter '") + name + "'");
    if (param->gradient.empty())
      return nullptr;
    if (odt::Status synced = state->state.synchronizeHost(); !synced)
      return toStatus(synced.withContext(function));
    odt::Tensor copy = param->gradient.clone();
    ODT_REQUIRE(!copy.empty(), function, "out of memory");
    *out = new OdtValue{std::move(copy)};
    return nullptr;
  });
}

void OdtReleaseCheckpointState(OdtCheckpointState *state) { delete state; }

// ---- training session ------------------------------------------------------

OdtStatus *OdtCreateTrainingSession(OdtCheckpointState *state,
                                    const char *compiledModel,
                                    OdtTrainingSession **out) {
  return guard("OdtCreateTrainingSession", [&]() -> OdtStatus * {
    ODT_REQUIRE(compiledModel, "OdtCreateTrainingSession",
                "compiled_model is NULL");
    return createSession("OdtCreateTrainingSession", state,
                         odt::CompiledModel::load(compiledModel), out);
  });
}

OdtStatus *OdtCreateTrainingSessionOnDevice(OdtCheckpointState *state,
                                            const char *compiledModel,
                                            const char *device,
                                            OdtTrainingSession **out) {
  return guard("OdtCreateTrainingSessionOnDevice", [&]() -> OdtStatus * {
    ODT_REQUIRE(compiledModel && device, "OdtCreateTrainingSessionOnDevice",
                "compiled_model and device must not be NULL");
    if (out)
      *out = nullptr;
    odt::Result<odt::cuda::DeviceSpec> spec =
        odt::cuda::parseDeviceSpec(device);
    if (!spec)
      return toStatus(
          spec.getStatus().withContext("OdtCreateTrainingSessionOnDevice"));
    return createSession("OdtCreateTrainingSessionOnDevice", state,
                         odt::CompiledModel::load(compiledModel), out, *spec);
  });
}

OdtStatus *OdtCreateTrainingSessionFromBuffer(OdtCheckpointState *state,
                                              const void *library, size_t size,
                                              OdtTrainingSession **out) {
  return guard("OdtCreateTrainingSessionFromBuffer", [&]() -> OdtStatus * {
    ODT_REQUIRE(library && size, "OdtCreateTrainingSessionFromBuffer",
                "library bytes are missing");
    return createSession("OdtCreateTrainingSessionFromBuffer", state,
                         odt::CompiledModel::loadFromBuffer(library, size),
                         out);
  });
}

OdtStatus *OdtCreateTrainingSessionFromLinkedModel(OdtCheckpointState *state,
                                                   const OdtLinkedModel *model,
                                                   OdtTrainingSession **out) {
  return guard("OdtCreateTrainingSessionFromLinkedModel", [&]() -> OdtStatus * {
    ODT_REQUIRE(model && model->descriptor && model->resolve,
                "OdtCreateTrainingSessionFromLinkedModel",
                "the linked model lacks its descriptor or resolver");
    return createSession("OdtCreateTrainingSessionFromLinkedModel", state,
                         odt::CompiledModel::fromDescriptor(
                             model->descriptor, model->descriptor_size,
                             model->resolve, model->context, "linked model"),
                         out);
  });
}

void OdtReleaseTrainingSession(OdtTrainingSession *session) { delete session; }

OdtStatus *OdtGetTrainingModelInputCount(const OdtTrainingSession *s,
                                         size_t *out) {
  return getCount("OdtGetTrainingModelInputCount", s,
                  &OdtTrainingSession::trainingInputs, out);
}
OdtStatus *OdtGetTrainingModelInputName(const OdtTrainingSession *s,
                                        size_t index, const char **out) {
  return getName("OdtGetTrainingModelInputName", s,
                 &OdtTrainingSession::trainingInputs, index, out);
}
OdtStatus *OdtGetTrainingModelOutputCount(const OdtTrainingSession *s,
                                          size_t *out) {
  return getCount("OdtGetTrainingModelOutputCount", s,
                  &OdtTrainingSession::trainingOutputs, out);
}
OdtStatus *OdtGetTrainingModelOutputName(const OdtTrainingSession *s,
                                         size_t index, const char **out) {
  return getName("OdtGetTrainingModelOutputName", s,
                 &OdtTrainingSession::trainingOutputs, index, out);
}
OdtStatus *OdtGetEvalModelInputCount(const OdtTrainingSession *s, size_t *out) {
  return getCount("OdtGetEvalModelInputCount", s,
                  &OdtTrainingSession::evalInputs, out);
}
OdtStatus *OdtGetEvalModelInputName(const OdtTrainingSession *s, size_t index,
                                    const char **out) {
  return getName("OdtGetEvalModelInputName", s, &OdtTrainingSession::evalInputs,
                 index, out);
}
OdtStatus *OdtGetEvalModelOutputCount(const OdtTrainingSession *s,
                                      size_t *out) {
  return getCount("OdtGetEvalModelOutputCount", s,
                  &OdtTrainingSession::evalOutputs, out);
}
OdtStatus *OdtGetEvalModelOutputName(const OdtTrainingSession *s, size_t index,
                                     const char **out) {
  return getName("OdtGetEvalModelOutputName", s,
                 &OdtTrainingSession::evalOutputs, index, out);
}

OdtStatus *OdtTrainStep(OdtTrainingSession *session, size_t inputsLen,
                        const OdtValue *const *inputs, size_t outputsLen,
                        OdtValue **outputs) {
  return guard("OdtTrainStep", [&]() {
    return runStep("OdtTrainStep", StepKind::Train, session, inputsLen, inputs,
                   outputsLen, outputs);
  });
}

OdtStatus *OdtEvalStep(OdtTrainingSession *session, size_t inputsLen,
                       const OdtValue *const *inputs, size_t outputsLen,
                       OdtValue **outputs) {
  return guard("OdtEvalStep", [&]() {
    return runStep("OdtEvalStep", StepKind::Eval, session, inputsLen, inputs,
                   outputsLen, outputs);
  });
}

OdtStatus *OdtLazyResetGrad(OdtTrainingSession *session) {
  ODT_REQUIRE(session, "OdtLazyResetGrad", "session is NULL");
  ODT_USE_SESSION(session, "OdtLazyResetGrad");
  return toStatus(session->session->lazyResetGrad());
}

OdtStatus *OdtOptimizerStep(OdtTrainingSession *session) {
  return guard("OdtOptimizerStep", [&]() -> OdtStatus * {
    ODT_REQUIRE(session, "OdtOptimizerStep", "session is NULL");
    ODT_USE_SESSION(session, "OdtOptimizerStep");
    return toStatus(session->session->optimizerStep());
  });
}

OdtStatus *OdtSetLearningRate(OdtTrainingSession *session, float lr) {
  return guard("OdtSetLearningRate", [&]() -> OdtStatus * {
    ODT_REQUIRE(session, "OdtSetLearningRate", "session is NULL");
    ODT_USE_SESSION(session, "OdtSetLearningRate");
    return toStatus(session->session->setLearningRate(lr));
  });
}

OdtStatus *OdtSetSessionThreads(OdtTrainingSession *session, int threads) {
  ODT_REQUIRE(session, "OdtSetSessionThreads", "session is NULL");
  ODT_USE_SESSION(session, "OdtSetSessionThreads");
  ODT_REQUIRE(threads >= 0, "OdtSetSessionThreads",
              "threads must be 0 (one per core) or positive");
  return guard("OdtSetSessionThreads", [&]() -> OdtStatus * {
    return toStatus(session->session->module().setThreads(threads));
  });
}

OdtStatus *OdtGetSessionThreads(const OdtTrainingSession *session, int *out) {
  ODT_REQUIRE(session && out, "OdtGetSessionThreads",
              "session and out must not be NULL");
  *out = session->session->module().threadCount();
  return nullptr;
}

OdtStatus *OdtSetSessionFlushDenormals(OdtTrainingSession *session,
                                       bool flush) {
  ODT_REQUIRE(session, "OdtSetSessionFlushDenormals", "session is NULL");
  ODT_USE_SESSION(session, "OdtSetSessionFlushDenormals");
  session->session->module().setFlushDenormals(flush);
  return nullptr;
}

OdtStatus *OdtGetSessionFlushDenormals(const OdtTrainingSession *session,
                                       bool *out) {
  ODT_REQUIRE(session && out, "OdtGetSessionFlushDenormals",
              "session and out must not be NULL");
  *out = session->session->module().flushesDenormals();
  return nullptr;
}

OdtStatus *OdtSetSessionStopOnNonFiniteLoss(OdtTrainingSession *session,
                                            bool stop) {
  ODT_REQUIRE(session, "OdtSetSessionStopOnNonFiniteLoss", "session is NULL");
  ODT_USE_SESSION(session, "OdtSetSessionStopOnNonFiniteLoss");
  session->session->module().setStopOnNonFiniteLoss(stop);
  return nullptr;
}

OdtStatus *OdtGetSessionStopOnNonFiniteLoss(const OdtTrainingSession *session,
                                            bool *out) {
  ODT_REQUIRE(session && out, "OdtGetSessionStopOnNonFiniteLoss",
              "session and out must not be NULL");
  *out = session->session->module().stopsOnNonFiniteLoss();
  return nullptr;
}

OdtStatus *OdtGetLearningRate(OdtTrainingSession *session, float *out) {
  ODT_REQUIRE(session && out, "OdtGetLearningRate",
              "session and out must not be NULL");
  odt::Result<float> lr = session->session->getLearningRate();
  if (!lr)
    return toStatus(lr.getStatus());
  *out = *lr;
  return nullptr;
}

OdtStatus *OdtRegisterLinearLRScheduler(OdtTrainingSession *session,
                                        int64_t warmup, int64_t total,
                                        float initialLr) {
  return guard("OdtRegisterLinearLRScheduler", [&]() -> OdtStatus * {
    ODT_REQUIRE(session, "OdtRegisterLinearLRScheduler", "session is NULL");
    ODT_USE_SESSION(session, "OdtRegisterLinearLRScheduler");
    odt::LRSchedulerConfig config;
    config.kind = "linear";
    config.warmupSteps = warmup;
    config.totalSteps = total;
    config.initialLearningRate = initialLr;
    return toStatus(session->session->registerScheduler(config));
  });
}

OdtStatus *OdtRegisterCosineLRScheduler(OdtTrainingSession *session,
                                        int64_t warmup, int64_t total,
                                        float initialLr, double numCycles) {
  return guard("OdtRegisterCosineLRScheduler", [&]() -> OdtStatus * {
    ODT_REQUIRE(session, "OdtRegisterCosineLRScheduler", "session is NULL");
    ODT_USE_SESSION(session, "OdtRegisterCosineLRScheduler");
    odt::LRSchedulerConfig config;
    config.kind = "cosine_with_warmup";
    config.warmupSteps = warmup;
    config.totalSteps = total;
    config.initialLearningRate = initialLr;
    config.numCycles = numCycles;
    return toStatus(session->session->registerScheduler(config));
  });
}

OdtStatus *OdtRegisterConstantLRScheduler(OdtTrainingSession *session,
                                          int64_t warmup, float initialLr) {
  return guard("OdtRegisterConstantLRScheduler", [&]() -> OdtStatus * {
    ODT_REQUIRE(session, "OdtRegisterConstantLRScheduler", "session is NULL");
    ODT_USE_SESSION(session, "OdtRegisterConstantLRScheduler");
    odt::LRSchedulerConfig config;
    config.kind = "constant_with_warmup";
    config.warmupSteps = warmup;
    config.totalSteps = 0;
    config.initialLearningRate = initialLr;
    return toStatus(session->session->registerScheduler(config));
  });
}

OdtStatus *OdtSchedulerStep(OdtTrainingSession *session) {
  return guard("OdtSchedulerStep", [&]() -> OdtStatus * {
    ODT_REQUIRE(session, "OdtSchedulerStep", "session is NULL");
    ODT_USE_SESSION(session, "OdtSchedulerStep");
    return toStatus(session->session->schedulerStep());
  });
}

OdtStatus *OdtGetParametersSize(OdtTrainingSession *session, size_t *out,
                                bool trainableOnly) {
  ODT_REQUIRE(session && out, "OdtGetParametersSize",
              "session and out must not be NULL");
  *out = static_cast<size_t>(
      session->session->module().getParametersSize(trainableOnly));
  return nullptr;
}

OdtStatus *OdtCopyParametersToBuffer(OdtTrainingSession *session,
                                     OdtValue *buffer, bool trainableOnly) {
  return guard("OdtCopyParametersToBuffer", [&]() -> OdtStatus * {
    ODT_REQUIRE(session && buffer, "OdtCopyParametersToBuffer",
                "session and buffer must not be NULL");
    ODT_USE_SESSION(session, "OdtCopyParametersToBuffer");
    return toStatus(session->session->module().copyParametersToBuffer(
        buffer->tensor, trainableOnly));
  });
}

OdtStatus *OdtCopyBufferToParameters(OdtTrainingSession *session,
                                     const OdtValue *buffer,
                                     bool trainableOnly) {
  return guard("OdtCopyBufferToParameters", [&]() -> OdtStatus * {
    ODT_REQUIRE(session && buffer, "OdtCopyBufferToParameters",
                "session and buffer must not be NULL");
    ODT_USE_SESSION(session, "OdtCopyBufferToParameters");
    return toStatus(session->session->module().copyBufferToParameters(
        buffer->tensor, trainableOnly));
  });
}

OdtStatus *OdtExportModelForInferencing(OdtTrainingSession *session,
                                        const char *path, size_t namesLen,
                                        const char *const *names) {
  return guard("OdtExportModelForInferencing", [&]() -> OdtStatus * {
    const char *function = "OdtExportModelForInferencing";
    ODT_REQUIRE(session && path, function, "session and path must not be NULL");
    ODT_USE_SESSION(session, function);
    ODT_REQUIRE(namesLen == 0 || names, function, "output_names is NULL");
    std::vector<std::string> outputNames;
    for (size_t i = 0; i < namesLen; ++i) {
      ODT_REQUIRE(names[i], function,
                  "output name " + std::to_string(i) + " is NULL");
      outputNames.push_back(names[i]);
    }
    return toStatus(
        session->session->exportModelForInferencing(path, outputNames));
  });
}

OdtStatus *OdtSetSeed(int64_t seed) {
  odt::setSeed(seed);
  return nullptr;
}

} // extern "C"
