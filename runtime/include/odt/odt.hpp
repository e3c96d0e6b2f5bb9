// odt.hpp — a header-only C++17 layer over odt's C API (odt.h), shaped like
// ONNX Runtime's C++ training wrapper (onnxruntime_training_cxx_api.h):
// namespace Odt instead of Ort, the same class and method names.
//
//   Odt::CheckpointState state = Odt::CheckpointState::LoadCheckpoint(path);
//   Odt::TrainingSession session(state, "compiled_model_dir");
//   std::vector<Odt::Value> outputs = session.TrainStep(inputs);
//   session.OptimizerStep();
//   session.LazyResetGrad();
//
// Rules:
//  * Every C object is owned by exactly one move-only C++ object and released
//    by its destructor. A moved-from object is empty (operator bool is false)
//    and may only be destroyed or assigned to.
//  * Every failing OdtStatus becomes an Odt::Exception (a std::runtime_error
//    whose what() is the C API's message); the status is released first.
//  * Lifetimes are the C API's: a TrainingSession uses its CheckpointState's
//    parameters in place, so the state must outlive the session; a Value made
//    over user memory must not outlive that memory.
//  * Threads: as odt.h says. One session (and its state) at a time per thread;
//    different states with their own sessions may run in parallel.
//
// Needs only odt.h and the C++ standard library; link with libodt.so.

#ifndef ODT_ODT_HPP
#define ODT_ODT_HPP

#include "odt/odt.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace Odt {

/// The error of any failing odt call: what() is the C API's message, which
/// names the function and what went wrong.
class Exception : public std::runtime_error {
public:
  explicit Exception(const std::string &message)
      : std::runtime_error(message) {}
};

/// A checkpoint property (ORT: Ort::Property).
using Property = std::variant<int64_t, float, std::string>;

/// Element types, as in odt.h (ONNX's TensorProto.DataType numbering).
using DataType = OdtDataType;

namespace detail {

/// Releases `status` and throws its message; does nothing for NULL.
inline void ThrowOnError(OdtStatus *status) {
  if (!status)
    return;
  std::string message = OdtGetErrorMessage(status);
  OdtReleaseStatus(status);
  throw Exception(message);
}

struct ValueDeleter {
  void operator()(OdtValue *value) const { OdtReleaseValue(value); }
};
struct CheckpointStateDeleter {
  void operator()(OdtCheckpointState *state) const {
    OdtReleaseCheckpointState(state);
  }
};
struct TrainingSessionDeleter {
  void operator()(OdtTrainingSession *session) const {
    OdtReleaseTrainingSession(session);
  }
};

template <typename T> struct TypeToDataType;
template <> struct TypeToDataType<float> {
  static constexpr DataType value = ODT_FLOAT;
};
template <> struct TypeToDataType<double> {
  static constexpr DataType value = ODT_DOUBLE;
};
template <> struct TypeToDataType<int8_t> {
  static constexpr DataType value = ODT_INT8;
};
template <> struct TypeToDataType<int16_t> {
  static constexpr DataType value = ODT_INT16;
};
template <> struct TypeToDataType<int32_t> {
  static constexpr DataType value = ODT_INT32;
};
template <> struct TypeToDataType<int64_t> {
  static constexpr DataType value = ODT_INT64;
};
template <> struct TypeToDataType<uint8_t> {
  static constexpr DataType value = ODT_UINT8;
};
template <> struct TypeToDataType<uint16_t> {
  static constexpr DataType value = ODT_UINT16;
};
template <> struct TypeToDataType<uint32_t> {
  static constexpr DataType value = ODT_UINT32;
};
template <> struct TypeToDataType<uint64_t> {
  static constexpr DataType value = ODT_UINT64;
};
template <> struct TypeToDataType<bool> {
  static constexpr DataType value = ODT_BOOL;
};

inline const char *DataTypeName(DataType type) {
  switch (type) {
  case ODT_FLOAT: return "float32";
  case ODT_UINT8: return "uint8";
  case ODT_INT8: return "int8";
  case ODT_UINT16: return "uint16";
  case ODT_INT16: return "int16";
  case ODT_INT32: return "int32";
  case ODT_INT64: return "int64";
  case ODT_BOOL: return "bool";
  case ODT_FLOAT16: return "float16";
  case ODT_DOUBLE: return "float64";
  case ODT_UINT32: return "uint32";
  case ODT_UINT64: return "uint64";
  case ODT_BFLOAT16: return "bfloat16";
  default: return "undefined";
  }
}

} // namespace detail

/// The API version of the loaded libodt (ODT_API_VERSION).
inline uint32_t GetApiVersion() { return OdtGetApiVersion(); }

/// odt's release of the loaded libodt, "MAJOR.MINOR.PATCH".
inline std::string GetVersionString() { return OdtGetVersionString(); }

/// ORT: SetSeed. Seeds the Dropout masks of every session (odt.h says how).
inline void SetSeed(int64_t seed) { detail::ThrowOnError(OdtSetSeed(seed)); }

/// An element type and a shape. For a parameter of a nominal state the
/// shape is empty (the C API reports rank 0 until it has values).
struct TensorTypeAndShape {
  DataType type = ODT_UNDEFINED;
  std::vector<int64_t> shape;
  /// Product of the dims (1 for a scalar).
  size_t GetElementCount() const {
    size_t count = 1;
    for (int64_t dim : shape)
      count *= static_cast<size_t>(dim);
    return count;
  }
};

/// A tensor (ORT: Ort::Value), owning an OdtValue. Either owns its buffer
/// (CreateTensor(shape)) or views caller memory (CreateTensor(data, ...)).
class Value {
public:
  /// An empty value: no tensor. As a TrainStep/EvalStep output it asks odt
  /// to allocate the result.
  Value() = default;
  Value(std::nullptr_t) {}
  /// Takes ownership of `value`.
  explicit Value(OdtValue *value) : handle(value) {}

  /// A zero-filled tensor of T that owns its buffer.
  template <typename T>
  static Value CreateTensor(const std::vector<int64_t> &shape) {
    return CreateTensor(detail::TypeToDataType<T>::value, shape);
  }
  /// A zero-filled tensor of any dtype that owns its buffer.
  static Value CreateTensor(DataType type, const std::vector<int64_t> &shape) {
    OdtValue *out = nullptr;
    detail::ThrowOnError(
        OdtCreateTensor(type, shape.data(), shape.size(), &out));
    return Value(out);
  }
  /// A tensor over `element_count` elements of caller memory (which must
  /// outlive the value); the count must match the shape.
  template <typename T>
  static Value CreateTensor(T *data, size_t element_count,
                            const std::vector<int64_t> &shape) {
    static_assert(!std::is_const<T>::value,
                  "a Value may be written (as an output); pass mutable data");
    return CreateTensor(detail::TypeToDataType<T>::value,
                        static_cast<void *>(data), element_count * sizeof(T),
                        shape);
  }
  /// A tensor of any dtype over `byte_size` bytes of caller memory.
  static Value CreateTensor(DataType type, void *data, size_t byte_size,
                            const std::vector<int64_t> &shape) {
    OdtValue *out = nullptr;
    detail::ThrowOnError(OdtCreateTensorWithData(
        type, shape.data(), shape.size(), data, byte_size, &out));
    return Value(out);
  }

  /// Beyond ORT (its CUDA Ort::MemoryInfo): a tensor over `byte_size`
  /// bytes of CUDA memory on `device` ("cuda" or "cuda:N"), `device_data`
  /// a CUdeviceptr that must outlive the value. A session on that device
  /// copies it on the device as a TrainStep or EvalStep input; anything
  /// else refuses it at the step (OdtCreateTensorWithDeviceData).
  static Value CreateDeviceTensor(DataType type, const std::string &device,
                                  void *device_data, size_t byte_size,
                                  const std::vector<int64_t> &shape) {
    OdtValue *out = nullptr;
    detail::ThrowOnError(OdtCreateTensorWithDeviceData(
        type, shape.data(), shape.size(), device.c_str(), device_data,
        byte_size, &out));
    return Value(out);
  }

  Value(Value &&) noexcept = default;
  Value &operator=(Value &&) noexcept = default;
  Value(const Value &) = delete;
  Value &operator=(const Value &) = delete;

  explicit operator bool() const { return handle != nullptr; }
  OdtValue *get() const { return handle.get(); }
  /// Gives up ownership (the caller releases with OdtReleaseValue).
  OdtValue *release() { return handle.release(); }

  DataType GetDataType() const {
    DataType type = ODT_UNDEFINED;
    detail::ThrowOnError(OdtGetTensorDataType(handle.get(), &type));
    return type;
  }
  std::vector<int64_t> GetShape() const {
    size_t rank = 0;
    const int64_t *dims = nullptr;
    detail::ThrowOnError(OdtGetTensorShape(handle.get(), &rank, &dims));
    return rank ? std::vector<int64_t>(dims, dims + rank)
                : std::vector<int64_t>();
  }
  TensorTypeAndShape GetTensorTypeAndShape() const {
    return TensorTypeAndShape{GetDataType(), GetShape()};
  }
  size_t GetElementCount() const {
    size_t count = 0;
    detail::ThrowOnError(OdtGetTensorElementCount(handle.get(), &count));
    return count;
  }
  /// The CUDA device whose memory holds the data, or -1 (host memory).
  int GetDevice() const {
    int device = -1;
    detail::ThrowOnError(OdtGetTensorDevice(handle.get(), &device));
    return device;
  }

  /// The data as T*; throws if the tensor's dtype is not T's.
  template <typename T> T *GetTensorMutableData() {
    CheckType(detail::TypeToDataType<T>::value);
    return static_cast<T *>(GetTensorMutableRawData());
  }
  template <typename T> const T *GetTensorData() const {
    CheckType(detail::TypeToDataType<T>::value);
    return static_cast<const T *>(GetTensorRawData());
  }
  void *GetTensorMutableRawData() {
    void *data = nullptr;
    detail::ThrowOnError(OdtGetTensorData(handle.get(), &data));
    return data;
  }
  const void *GetTensorRawData() const {
    void *data = nullptr;
    detail::ThrowOnError(OdtGetTensorData(handle.get(), &data));
    return data;
  }
  /// A copy of the elements.
  template <typename T> std::vector<T> ToVector() const {
    const T *data = GetTensorData<T>();
    return std::vector<T>(data, data + GetElementCount());
  }

private:
  void CheckType(DataType wanted) const {
    DataType actual = GetDataType();
    if (actual != wanted)
      throw Exception(std::string("Odt::Value: the tensor is ") +
                      detail::DataTypeName(actual) + ", not " +
                      detail::DataTypeName(wanted));
  }

  std::unique_ptr<OdtValue, detail::ValueDeleter> handle;
};

/// Parameters, optimizer state and properties (ORT: Ort::CheckpointState).
class CheckpointState {
public:
  /// Takes ownership of `state`.
  explicit CheckpointState(OdtCheckpointState *state) : handle(state) {}

  /// ORT: LoadCheckpoint.
  static CheckpointState LoadCheckpoint(const std::string &path) {
    OdtCheckpointState *out = nullptr;
    detail::ThrowOnError(OdtLoadCheckpoint(path.c_str(), &out));
    return CheckpointState(out);
  }
  /// ORT: LoadCheckpointFromBuffer. The bytes are copied.
  static CheckpointState LoadCheckpointFromBuffer(const void *data,
                                                  size_t size) {
    OdtCheckpointState *out = nullptr;
    detail::ThrowOnError(OdtLoadCheckpointFromBuffer(data, size, &out));
    return CheckpointState(out);
  }
  static CheckpointState
  LoadCheckpointFromBuffer(const std::vector<uint8_t> &buffer) {
    return LoadCheckpointFromBuffer(buffer.data(), buffer.size());
  }
  /// ORT: SaveCheckpoint. Atomic: on failure the previous file is intact.
  static void SaveCheckpoint(const CheckpointState &state,
                             const std::string &path,
                             bool include_optimizer_state = false) {
    detail::ThrowOnError(OdtSaveCheckpoint(state.handle.get(), path.c_str(),
                                           include_optimizer_state));
  }

  CheckpointState(CheckpointState &&) noexcept = default;
  CheckpointState &operator=(CheckpointState &&) noexcept = default;
  CheckpointState(const CheckpointState &) = delete;
  CheckpointState &operator=(const CheckpointState &) = delete;

  explicit operator bool() const { return handle != nullptr; }
  OdtCheckpointState *get() const { return handle.get(); }
  OdtCheckpointState *release() { return handle.release(); }

  /// ORT: AddProperty. Adds or replaces; names starting with "odt." are
  /// odt's own and refused.
  void AddProperty(const std::string &name, const Property &value) {
    OdtStatus *status = nullptr;
    if (const int64_t *i = std::get_if<int64_t>(&value))
      status = OdtAddProperty(handle.get(), name.c_str(), ODT_INT_PROPERTY, i);
    else if (const float *f = std::get_if<float>(&value))
      status = OdtAddProperty(handle.get(), name.c_str(), ODT_FLOAT_PROPERTY, f);
    else
      status = OdtAddProperty(handle.get(), name.c_str(), ODT_STRING_PROPERTY,
                              std::get<std::string>(value).c_str());
    detail::ThrowOnError(status);
  }
  /// ORT: GetProperty (a copy of the value).
  Property GetProperty(const std::string &name) const {
    OdtPropertyType type = ODT_INT_PROPERTY;
    const void *value = nullptr;
    detail::ThrowOnError(
        OdtGetProperty(handle.get(), name.c_str(), &type, &value));
    switch (type) {
    case ODT_INT_PROPERTY:
      return *static_cast<const int64_t *>(value);
    case ODT_FLOAT_PROPERTY:
      return *static_cast<const float *>(value);
    case ODT_STRING_PROPERTY:
      return std::string(static_cast<const char *>(value));
    default:
      break;
    }
    throw Exception("Odt::CheckpointState::GetProperty: property '" + name +
                    "' has an unknown type " + std::to_string(type));
  }

  /// ORT: GetParameterTypeAndShape.
  TensorTypeAndShape GetParameterTypeAndShape(const std::string &name) const {
    TensorTypeAndShape result;
    size_t rank = 0;
    const int64_t *dims = nullptr;
    detail::ThrowOnError(OdtGetParameterTypeAndShape(
        handle.get(), name.c_str(), &result.type, &rank, &dims));
    if (rank)
      result.shape.assign(dims, dims + rank);
    return result;
  }
  /// ORT: UpdateParameter. Copies `value` into the parameter.
  void UpdateParameter(const std::string &name, const Value &value) {
    detail::ThrowOnError(
        OdtUpdateParameter(handle.get(), name.c_str(), value.get()));
  }
  /// ORT: GetParameter. A new tensor holding a copy of the parameter.
  Value GetParameter(const std::string &name) const {
    OdtValue *out = nullptr;
    detail::ThrowOnError(OdtGetParameter(handle.get(), name.c_str(), &out));
    return Value(out);
  }
  /// Beyond ORT: the parameters' names in file order.
  std::vector<std::string> GetParameterNames() const {
    return names(OdtGetParameterCount, OdtGetParameterName);
  }
  /// Beyond ORT: the properties' names, sorted (odt's own included).
  std::vector<std::string> GetPropertyNames() const {
    return names(OdtGetPropertyCount, OdtGetPropertyName);
  }
  /// Beyond ORT: whether the parameter is trained.
  bool GetParameterRequiresGrad(const std::string &name) const {
    bool out = false;
    detail::ThrowOnError(
        OdtGetParameterRequiresGrad(handle.get(), name.c_str(), &out));
    return out;
  }
  /// Beyond ORT: a copy of the parameter's gradient; an empty Value when it
  /// has none (frozen, or no session yet).
  Value GetParameterGradient(const std::string &name) const {
    OdtValue *out = nullptr;
    detail::ThrowOnError(
        OdtGetParameterGradient(handle.get(), name.c_str(), &out));
    return Value(out);
  }

private:
  template <typename Count, typename Name>
  std::vector<std::string> names(Count count, Name name) const {
    size_t size = 0;
    detail::ThrowOnError(count(handle.get(), &size));
    std::vector<std::string> result;
    result.reserve(size);
    for (size_t i = 0; i < size; ++i) {
      const char *text = nullptr;
      detail::ThrowOnError(name(handle.get(), i, &text));
      result.emplace_back(text);
    }
    return result;
  }
  std::unique_ptr<OdtCheckpointState, detail::CheckpointStateDeleter> handle;
};

/// A compiled model run over a checkpoint state (ORT: Ort::TrainingSession).
/// The state must outlive the session.
class TrainingSession {
public:
  /// ORT: CreateTrainingSession. `compiled_model` is odt-compile's output
  /// folder or its libmodel.so.
  TrainingSession(CheckpointState &state, const std::string &compiled_model) {
    OdtTrainingSession *out = nullptr;
    detail::ThrowOnError(
        OdtCreateTrainingSession(state.get(), compiled_model.c_str(), &out));
    handle.reset(out);
  }
  /// Beyond ORT: the steps run on `device` ("cpu", "cuda", "cuda:N"); see
  /// OdtCreateTrainingSessionOnDevice.
  TrainingSession(CheckpointState &state, const std::string &compiled_model,
                  const std::string &device) {
    OdtTrainingSession *out = nullptr;
    detail::ThrowOnError(OdtCreateTrainingSessionOnDevice(
        state.get(), compiled_model.c_str(), device.c_str(), &out));
    handle.reset(out);
  }
  /// ORT: CreateTrainingSessionFromBuffer. `library` holds the bytes of a
  /// libmodel.so made by odt-compile.
  TrainingSession(CheckpointState &state, const void *library, size_t size) {
    OdtTrainingSession *out = nullptr;
    detail::ThrowOnError(OdtCreateTrainingSessionFromBuffer(
        state.get(), library, size, &out));
    handle.reset(out);
  }
  TrainingSession(CheckpointState &state, const std::vector<uint8_t> &library)
      : TrainingSession(state, library.data(), library.size()) {}
  /// A model linked into the program (model.o + model.h).
  TrainingSession(CheckpointState &state, const OdtLinkedModel &model) {
    OdtTrainingSession *out = nullptr;
    detail::ThrowOnError(
        OdtCreateTrainingSessionFromLinkedModel(state.get(), &model, &out));
    handle.reset(out);
  }
  /// Takes ownership of `session`.
  explicit TrainingSession(OdtTrainingSession *session) : handle(session) {}

  TrainingSession(TrainingSession &&) noexcept = default;
  TrainingSession &operator=(TrainingSession &&) noexcept = default;
  TrainingSession(const TrainingSession &) = delete;
  TrainingSession &operator=(const TrainingSession &) = delete;

  explicit operator bool() const { return handle != nullptr; }
  OdtTrainingSession *get() const { return handle.get(); }
  OdtTrainingSession *release() { return handle.release(); }

  /// ORT: TrainStep. Inputs in the training model's input order; returns new
  /// output tensors (the loss first).
  std::vector<Value> TrainStep(const std::vector<Value> &inputs) {
    std::vector<Value> outputs(OutputCount(true));
    TrainStep(inputs, outputs);
    return outputs;
  }
  /// TrainStep into `outputs` (resized to the output count): an empty Value
  /// receives a new tensor, a non-empty one (of the output's dtype and
  /// shape) is written in place. Reusing the vector across steps allocates
  /// nothing after the first step.
  void TrainStep(const std::vector<Value> &inputs,
                 std::vector<Value> &outputs) {
    Run(&OdtTrainStep, true, inputs, outputs);
  }
  /// ORT: EvalStep.
  std::vector<Value> EvalStep(const std::vector<Value> &inputs) {
    std::vector<Value> outputs(OutputCount(false));
    EvalStep(inputs, outputs);
    return outputs;
  }
  void EvalStep(const std::vector<Value> &inputs, std::vector<Value> &outputs) {
    Run(&OdtEvalStep, false, inputs, outputs);
  }

  /// ORT: LazyResetGrad. The next TrainStep overwrites the gradients.
  void LazyResetGrad() { detail::ThrowOnError(OdtLazyResetGrad(get())); }
  /// ORT: OptimizerStep.
  void OptimizerStep() { detail::ThrowOnError(OdtOptimizerStep(get())); }

  /// Threads of the compiled parallel loops (0: one per core).
  void SetThreads(int threads) {
    detail::ThrowOnError(OdtSetSessionThreads(get(), threads));
  }
  int GetThreads() const {
    int threads = 0;
    detail::ThrowOnError(OdtGetSessionThreads(get(), &threads));
    return threads;
  }
  /// Denormal floats flushed to zero in every step (the default) or kept.
  void SetFlushDenormals(bool flush) {
    detail::ThrowOnError(OdtSetSessionFlushDenormals(get(), flush));
  }
  bool GetFlushDenormals() const {
    bool flush = true;
    detail::ThrowOnError(OdtGetSessionFlushDenormals(get(), &flush));
    return flush;
  }
  /// TrainStep throws on a NaN or infinite loss (default: it goes on).
  void SetStopOnNonFiniteLoss(bool stop) {
    detail::ThrowOnError(OdtSetSessionStopOnNonFiniteLoss(get(), stop));
  }
  bool GetStopOnNonFiniteLoss() const {
    bool stop = false;
    detail::ThrowOnError(OdtGetSessionStopOnNonFiniteLoss(get(), &stop));
    return stop;
  }
  /// ORT: SetLearningRate / GetLearningRate.
  void SetLearningRate(float learning_rate) {
    detail::ThrowOnError(OdtSetLearningRate(get(), learning_rate));
  }
  float GetLearningRate() const {
    float lr = 0.0f;
    detail::ThrowOnError(OdtGetLearningRate(get(), &lr));
    return lr;
  }

  /// ORT: RegisterLinearLRScheduler.
  void RegisterLinearLRScheduler(int64_t warmup_step_count,
                                 int64_t total_step_count, float initial_lr) {
    detail::ThrowOnError(OdtRegisterLinearLRScheduler(
        get(), warmup_step_count, total_step_count, initial_lr));
  }
  /// Beyond ORT: cosine decay after a linear warm-up (Hugging Face's
  /// get_cosine_schedule_with_warmup).
  void RegisterCosineLRScheduler(int64_t warmup_step_count,
                                 int64_t total_step_count, float initial_lr,
                                 double num_cycles = 0.5) {
    detail::ThrowOnError(OdtRegisterCosineLRScheduler(
        get(), warmup_step_count, total_step_count, initial_lr, num_cycles));
  }
  /// Beyond ORT: a constant rate after a linear warm-up.
  void RegisterConstantLRScheduler(int64_t warmup_step_count,
                                   float initial_lr) {
    detail::ThrowOnError(
        OdtRegisterConstantLRScheduler(get(), warmup_step_count, initial_lr));
  }
  /// ORT: SchedulerStep.
  void SchedulerStep() { detail::ThrowOnError(OdtSchedulerStep(get())); }

  /// ORT: ExportModelForInferencing.
  void ExportModelForInferencing(const std::string &inference_model_path,
                                 const std::vector<std::string> &output_names) {
    std::vector<const char *> names;
    names.reserve(output_names.size());
    for (const std::string &name : output_names)
      names.push_back(name.c_str());
    detail::ThrowOnError(OdtExportModelForInferencing(
        get(), inference_model_path.c_str(), names.size(), names.data()));
  }

  /// ORT: InputNames(training) — the training model's user inputs if
  /// `training`, else the eval model's.
  std::vector<std::string> InputNames(bool training) const {
    return Names(training ? &OdtGetTrainingModelInputCount
                          : &OdtGetEvalModelInputCount,
                 training ? &OdtGetTrainingModelInputName
                          : &OdtGetEvalModelInputName);
  }
  /// ORT: OutputNames(training).
  std::vector<std::string> OutputNames(bool training) const {
    return Names(training ? &OdtGetTrainingModelOutputCount
                          : &OdtGetEvalModelOutputCount,
                 training ? &OdtGetTrainingModelOutputName
                          : &OdtGetEvalModelOutputName);
  }

  /// ORT: GetParametersSize.
  size_t GetParametersSize(bool trainable_only = true) const {
    size_t size = 0;
    detail::ThrowOnError(OdtGetParametersSize(get(), &size, trainable_only));
    return size;
  }
  /// ORT: ToBuffer (CopyParametersToBuffer into a new 1-d tensor of
  /// `type`, the parameters' dtype; float32 like ORT by default).
  Value ToBuffer(bool only_trainable, DataType type = ODT_FLOAT) {
    Value buffer = Value::CreateTensor(
        type, {static_cast<int64_t>(GetParametersSize(only_trainable))});
    detail::ThrowOnError(
        OdtCopyParametersToBuffer(get(), buffer.get(), only_trainable));
    return buffer;
  }
  /// CopyParametersToBuffer into a buffer of the caller's.
  void ToBuffer(Value &buffer, bool only_trainable) {
    detail::ThrowOnError(
        OdtCopyParametersToBuffer(get(), buffer.get(), only_trainable));
  }
  /// ORT: FromBuffer. As ORT does, the buffer's length says which
  /// parameters it holds: all of them (completing a nominal state) or the
  /// trainable ones; any other length is an error.
  void FromBuffer(const Value &buffer) {
    size_t count = buffer.GetElementCount();
    bool all = count == GetParametersSize(false);
    if (!all && count != GetParametersSize(true))
      throw Exception(
          "Odt::TrainingSession::FromBuffer: the buffer holds " +
          std::to_string(count) + " elements; the parameters need " +
          std::to_string(GetParametersSize(false)) + " (all) or " +
          std::to_string(GetParametersSize(true)) + " (trainable only)");
    FromBuffer(buffer, !all);
  }
  /// CopyBufferToParameters with an explicit choice.
  void FromBuffer(const Value &buffer, bool trainable_only) {
    detail::ThrowOnError(
        OdtCopyBufferToParameters(get(), buffer.get(), trainable_only));
  }

private:
  using StepFunction = OdtStatus *(*)(OdtTrainingSession *, size_t,
                                      const OdtValue *const *, size_t,
                                      OdtValue **);
  using CountFunction = OdtStatus *(*)(const OdtTrainingSession *, size_t *);
  using NameFunction = OdtStatus *(*)(const OdtTrainingSession *, size_t,
                                      const char **);

  size_t OutputCount(bool training) const {
    size_t count = 0;
    detail::ThrowOnError(training ? OdtGetTrainingModelOutputCount(get(), &count)
                                  : OdtGetEvalModelOutputCount(get(), &count));
    return count;
  }

  void Run(StepFunction step, bool training, const std::vector<Value> &inputs,
           std::vector<Value> &outputs) {
    outputs.resize(OutputCount(training));
    std::vector<const OdtValue *> in(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      in[i] = inputs[i].get();
    std::vector<OdtValue *> out(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i)
      out[i] = outputs[i].get();
    OdtStatus *status =
        step(get(), in.size(), in.data(), out.size(), out.data());
    // The C API hands over a new tensor for every NULL entry, on success.
    if (!status)
      for (size_t i = 0; i < outputs.size(); ++i)
        if (!outputs[i])
          outputs[i] = Value(out[i]);
    detail::ThrowOnError(status);
  }

  std::vector<std::string> Names(CountFunction count,
                                 NameFunction name) const {
    size_t n = 0;
    detail::ThrowOnError(count(get(), &n));
    std::vector<std::string> names;
    names.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const char *text = nullptr;
      detail::ThrowOnError(name(get(), i, &text));
      names.emplace_back(text);
    }
    return names;
  }

  std::unique_ptr<OdtTrainingSession, detail::TrainingSessionDeleter> handle;
};

} // namespace Odt

#endif // ODT_ODT_HPP
