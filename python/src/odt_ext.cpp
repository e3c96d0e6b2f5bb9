// odt._odt: the Python extension over odt's C API (runtime/include/odt/odt.h).
//
// Thin on purpose: every call goes through the same C functions an
// application uses, so Python sees the same checks and messages; the ORT-
// shaped classes are Python (python/odt/training/api). NumPy arrays pass
// without copies both ways: inputs become OdtValues over the array's memory
// (C-contiguous arrays; the Python layer makes other ones contiguous), and
// outputs the runtime allocates become arrays that own their OdtValue.

#include "odt/odt.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

/// An error status of the C API, raised in Python as odt.OdtError.
struct OdtError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(OdtStatus *status) {
  if (!status)
    return;
  std::string message = OdtGetErrorMessage(status);
  OdtReleaseStatus(status);
  throw OdtError(message);
}

struct ValueDeleter {
  void operator()(OdtValue *value) const { OdtReleaseValue(value); }
};
using ValuePtr = std::unique_ptr<OdtValue, ValueDeleter>;

// Inputs are only read (a read-only array is accepted); a parameter buffer
// to fill must be writable.
using InputArray = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;
// A step's input: in host memory, or in a CUDA device's (a torch CUDA
// tensor, a CuPy array: anything with __dlpack__), taken where it is; the
// session copies the latter on the device.
using StepArray = nb::ndarray<nb::ro, nb::c_contig>;
using HostArray = nb::ndarray<nb::device::cpu, nb::c_contig>;
using NumpyArray = nb::ndarray<nb::numpy>;

OdtDataType toDataType(nb::dlpack::dtype dtype, const std::string &what) {
  using Code = nb::dlpack::dtype_code;
  if (dtype.lanes == 1) {
    switch (static_cast<Code>(dtype.code)) {
    case Code::Float:
      if (dtype.bits == 32)
        return ODT_FLOAT;
      if (dtype.bits == 64)
        return ODT_DOUBLE;
      if (dtype.bits == 16)
        return ODT_FLOAT16;
      break;
    case Code::Bfloat:
      if (dtype.bits == 16)
        return ODT_BFLOAT16;
      break;
    case Code::Int:
      switch (dtype.bits) {
      case 8: return ODT_INT8;
      case 16: return ODT_INT16;
      case 32: return ODT_INT32;
      case 64: return ODT_INT64;
      }
      break;
    case Code::UInt:
      switch (dtype.bits) {
      case 8: return ODT_UINT8;
      case 16: return ODT_UINT16;
      case 32: return ODT_UINT32;
      case 64: return ODT_UINT64;
      }
      break;
    case Code::Bool:
      if (dtype.bits == 8)
        return ODT_BOOL;
      break;
    default:
      break;
    }
  }
  throw OdtError(what + ": arrays of this dtype (DLPack code " +
                 std::to_string(dtype.code) + ", " +
                 std::to_string(dtype.bits) + " bits) are not supported");
}

nb::dlpack::dtype toDlpack(OdtDataType type) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code code, int bits) {
    nb::dlpack::dtype dtype;
    dtype.code = static_cast<uint8_t>(code);
    dtype.bits = static_cast<uint8_t>(bits);
    dtype.lanes = 1;
    return dtype;
  };
  switch (type) {
  case ODT_FLOAT: return make(Code::Float, 32);
  case ODT_DOUBLE: return make(Code::Float, 64);
  case ODT_FLOAT16: return make(Code::Float, 16);
  case ODT_BFLOAT16: return make(Code::Bfloat, 16);
  case ODT_INT8: return make(Code::Int, 8);
  case ODT_INT16: return make(Code::Int, 16);
  case ODT_INT32: return make(Code::Int, 32);
  case ODT_INT64: return make(Code::Int, 64);
  case ODT_UINT8: return make(Code::UInt, 8);
  case ODT_UINT16: return make(Code::UInt, 16);
  case ODT_UINT32: return make(Code::UInt, 32);
  case ODT_UINT64: return make(Code::UInt, 64);
  case ODT_BOOL: return make(Code::Bool, 8);
  default:
    throw OdtError("a tensor of ONNX type " + std::to_string(type) +
                   " has no NumPy equivalent");
  }
}

/// An OdtValue over the array's memory (no copy): host memory, or a CUDA
/// device's for an array there. The array must outlive it.
template <typename Array>
ValuePtr viewArray(const Array &array, const std::string &what) {
  std::vector<int64_t> shape(array.ndim());
  for (size_t i = 0; i < array.ndim(); ++i)
    shape[i] = static_cast<int64_t>(array.shape(i));
  OdtDataType type = toDataType(array.dtype(), what);
  void *data = const_cast<void *>(array.data());
  OdtValue *value = nullptr;
  if (array.device_type() == nb::device::cuda::value) {
    std::string device = "cuda:" + std::to_string(array.device_id());
    check(OdtCreateTensorWithDeviceData(type, shape.data(), shape.size(),
                                        device.c_str(), data, array.nbytes(),
                                        &value));
  } else {
    check(OdtCreateTensorWithData(type, shape.data(), shape.size(), data,
                                  array.nbytes(), &value));
  }
  return ValuePtr(value);
}

/// A NumPy array that owns `value` (no copy).
nb::object toNumpy(ValuePtr value) {
  OdtDataType type = ODT_UNDEFINED;
  check(OdtGetTensorDataType(value.get(), &type));
  size_t rank = 0;
  const int64_t *dims = nullptr;
  check(OdtGetTensorShape(value.get(), &rank, &dims));
  void *data = nullptr;
  check(OdtGetTensorData(value.get(), &data));
  std::vector<size_t> shape(dims, dims + rank);
  nb::dlpack::dtype dtype = toDlpack(type);
  nb::capsule owner(value.get(), [](void *pointer) noexcept {
    OdtReleaseValue(static_cast<OdtValue *>(pointer));
  });
  value.release();
  return nb::cast(NumpyArray(data, rank, shape.data(), owner, nullptr, dtype));
}

/// The names an object of the C API lists by index (count, then each).
template <typename Object, typename Count, typename Name>
std::vector<std::string> namesOf(Object *object, Count count, Name name) {
  size_t size = 0;
  check(count(object, &size));
  std::vector<std::string> names;
  for (size_t i = 0; i < size; ++i) {
    const char *text = nullptr;
    check(name(object, i, &text));
    names.emplace_back(text);
  }
  return names;
}

class CheckpointState {
public:
  explicit CheckpointState(OdtCheckpointState *state) : state(state) {}
  ~CheckpointState() { OdtReleaseCheckpointState(state); }
  CheckpointState(const CheckpointState &) = delete;
  CheckpointState &operator=(const CheckpointState &) = delete;

  static CheckpointState *load(const std::string &path) {
    OdtCheckpointState *out = nullptr;
    check(OdtLoadCheckpoint(path.c_str(), &out));
    return new CheckpointState(out);
  }
  void save(const std::string &path, bool includeOptimizerState) {
    check(OdtSaveCheckpoint(state, path.c_str(), includeOptimizerState));
  }

  std::vector<std::string> parameterNames() const {
    return namesOf(state, OdtGetParameterCount, OdtGetParameterName);
  }
  std::vector<std::string> propertyNames() const {
    return namesOf(state, OdtGetPropertyCount, OdtGetPropertyName);
  }

  nb::object getProperty(const std::string &name) const {
    OdtPropertyType type;
    const void *value = nullptr;
    check(OdtGetProperty(state, name.c_str(), &type, &value));
    switch (type) {
    case ODT_INT_PROPERTY:
      return nb::int_(*static_cast<const int64_t *>(value));
    case ODT_FLOAT_PROPERTY:
      return nb::float_(*static_cast<const float *>(value));
    default:
      return nb::str(static_cast<const char *>(value));
    }
  }
  // Python's int, float and str; bool is refused (ORT's properties have no
  // bool, and True silently stored as 1 would come back as an int).
  void addProperty(const std::string &name, nb::handle value) {
    if (nb::isinstance<nb::bool_>(value))
      throw nb::type_error("a property is an int, a float or a str, not a bool");
    if (nb::isinstance<nb::int_>(value)) {
      int64_t number = nb::cast<int64_t>(value);
      check(OdtAddProperty(state, name.c_str(), ODT_INT_PROPERTY, &number));
    } else if (nb::isinstance<nb::float_>(value)) {
      float number = nb::cast<float>(value);
      check(OdtAddProperty(state, name.c_str(), ODT_FLOAT_PROPERTY, &number));
    } else if (nb::isinstance<nb::str>(value)) {
      std::string text = nb::cast<std::string>(value);
      if (text.find('\0') != std::string::npos)
        throw nb::value_error("a string property cannot contain NUL");
      check(OdtAddProperty(state, name.c_str(), ODT_STRING_PROPERTY,
                           text.c_str()));
    } else {
      throw nb::type_error(("a property is an int, a float or a str, not " +
                            nb::cast<std::string>(nb::str(value.type())))
                               .c_str());
    }
  }

  nb::object getParameter(const std::string &name) const {
    OdtValue *out = nullptr;
    check(OdtGetParameter(state, name.c_str(), &out));
    return toNumpy(ValuePtr(out));
  }
  nb::object getGradient(const std::string &name) const {
    OdtValue *out = nullptr;
    check(OdtGetParameterGradient(state, name.c_str(), &out));
    if (!out)
      return nb::none();
    return toNumpy(ValuePtr(out));
  }
  bool requiresGrad(const std::string &name) const {
    bool out = false;
    check(OdtGetParameterRequiresGrad(state, name.c_str(), &out));
    return out;
  }
  void updateParameter(const std::string &name, const InputArray &array) {
    ValuePtr value = viewArray(array, "parameter '" + name + "'");
    check(OdtUpdateParameter(state, name.c_str(), value.get()));
  }
  OdtCheckpointState *state;
};

class TrainingSession {
public:
  TrainingSession(CheckpointState &state, const std::string &compiledModel,
                  const std::string &device) {
    check(OdtCreateTrainingSessionOnDevice(state.state, compiledModel.c_str(),
                                           device.c_str(), &session));
    // The names are fixed for the session: listed once, not per step.
    trainingInputs = namesOf(session, OdtGetTrainingModelInputCount,
                             OdtGetTrainingModelInputName);
    trainingOutputs = namesOf(session, OdtGetTrainingModelOutputCount,
                              OdtGetTrainingModelOutputName);
    evalInputs =
        namesOf(session, OdtGetEvalModelInputCount, OdtGetEvalModelInputName);
    evalOutputs = namesOf(session, OdtGetEvalModelOutputCount,
                          OdtGetEvalModelOutputName);
  }
  ~TrainingSession() { OdtReleaseTrainingSession(session); }
  TrainingSession(const TrainingSession &) = delete;
  TrainingSession &operator=(const TrainingSession &) = delete;

  const std::vector<std::string> &inputNames(bool training) const {
    return training ? trainingInputs : evalInputs;
  }
  const std::vector<std::string> &outputNames(bool training) const {
    return training ? trainingOutputs : evalOutputs;
  }

  /// TrainStep or EvalStep over the arrays (viewed, not copied: host
  /// arrays, and CUDA arrays for a session on a cuda device); the outputs
  /// are new NumPy arrays. The GIL is released while the step runs.
  std::vector<nb::object> step(bool training,
                               const std::vector<nb::object> &arrays) {
    const std::vector<std::string> &names = inputNames(training);
    std::vector<ValuePtr> inputs;
    std::vector<const OdtValue *> raw;
    // The arrays the values view, kept until the step is over.
    std::vector<StepArray> viewed;
    viewed.reserve(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
      std::string what = i < names.size()
                             ? "input '" + names[i] + "'"
                             : "input " + std::to_string(i);
      StepArray array;
      if (!nb::try_cast(arrays[i], array, /*convert=*/false) ||
          (array.device_type() != nb::device::cpu::value &&
           array.device_type() != nb::device::cuda::value))
        throw nb::type_error(
            (what + ": a C-contiguous array in host memory or in a CUDA "
                    "device's memory (DLPack) was expected")
                .c_str());
      viewed.push_back(array);
      inputs.push_back(viewArray(viewed.back(), what));
      raw.push_back(inputs.back().get());
    }
    size_t outputCount = outputNames(training).size();
    std::vector<OdtValue *> outputs(outputCount, nullptr);
    OdtStatus *status;
    {
      nb::gil_scoped_release release;
      status = training ? OdtTrainStep(session, raw.size(), raw.data(),
                                       outputs.size(), outputs.data())
                        : OdtEvalStep(session, raw.size(), raw.data(),
                                      outputs.size(), outputs.data());
    }
    std::vector<ValuePtr> owned;
    for (OdtValue *output : outputs)
      owned.emplace_back(output);
    check(status);
    std::vector<nb::object> result;
    for (ValuePtr &output : owned)
      result.push_back(toNumpy(std::move(output)));
    return result;
  }

  void lazyResetGrad() { check(OdtLazyResetGrad(session)); }
  void optimizerStep() {
    OdtStatus *status;
    {
      nb::gil_scoped_release release;
      status = OdtOptimizerStep(session);
    }
    check(status);
  }
  void setLearningRate(float rate) {
    check(OdtSetLearningRate(session, rate));
  }
  float getLearningRate() {
    float rate = 0;
    check(OdtGetLearningRate(session, &rate));
    return rate;
  }
  void registerLinearLRScheduler(int64_t warmup, int64_t total, float lr) {
    check(OdtRegisterLinearLRScheduler(session, warmup, total, lr));
  }
  void schedulerStep() { check(OdtSchedulerStep(session)); }

  size_t parametersSize(bool trainableOnly) {
    size_t size = 0;
    check(OdtGetParametersSize(session, &size, trainableOnly));
    return size;
  }
  void copyParametersToBuffer(HostArray buffer, bool trainableOnly) {
    ValuePtr value = viewArray(buffer, "the parameter buffer");
    check(OdtCopyParametersToBuffer(session, value.get(), trainableOnly));
  }
  void copyBufferToParameters(const InputArray &buffer, bool trainableOnly) {
    ValuePtr value = viewArray(buffer, "the parameter buffer");
    check(OdtCopyBufferToParameters(session, value.get(), trainableOnly));
  }
  void exportModelForInferencing(const std::string &path,
                                 const std::vector<std::string> &outputs) {
    std::vector<const char *> raw;
    for (const std::string &name : outputs)
      raw.push_back(name.c_str());
    check(OdtExportModelForInferencing(session, path.c_str(), raw.size(),
                                       raw.data()));
  }
  void setThreads(int threads) { check(OdtSetSessionThreads(session, threads)); }

private:
  OdtTrainingSession *session = nullptr;
  std::vector<std::string> trainingInputs, trainingOutputs, evalInputs,
      evalOutputs;
};

} // namespace

NB_MODULE(_odt, m) {
  m.doc() = "odt's training runtime (the C API of runtime/include/odt/odt.h)";
  nb::exception<OdtError>(m, "OdtError", PyExc_RuntimeError);
  m.def("api_version", &OdtGetApiVersion);
  m.attr("__version__") = OdtGetVersionString();
  m.def("set_seed", [](int64_t seed) { check(OdtSetSeed(seed)); });

  nb::class_<CheckpointState>(m, "CheckpointState")
      .def_static("load", &CheckpointState::load, nb::arg("path"))
      .def("save", &CheckpointState::save, nb::arg("path"),
           nb::arg("include_optimizer_state"))
      .def("parameter_names", &CheckpointState::parameterNames)
      .def("property_names", &CheckpointState::propertyNames)
      .def("get_property", &CheckpointState::getProperty, nb::arg("name"))
      .def("add_property", &CheckpointState::addProperty, nb::arg("name"),
           nb::arg("value"))
      .def("get_parameter", &CheckpointState::getParameter, nb::arg("name"))
      .def("get_gradient", &CheckpointState::getGradient, nb::arg("name"))
      .def("requires_grad", &CheckpointState::requiresGrad, nb::arg("name"))
      .def("update_parameter", &CheckpointState::updateParameter,
           nb::arg("name"), nb::arg("value"));

  // The state outlives every session made over it (keep_alive).
  nb::class_<TrainingSession>(m, "TrainingSession")
      .def(nb::init<CheckpointState &, const std::string &,
                    const std::string &>(),
           nb::arg("state"), nb::arg("compiled_model"),
           nb::arg("device") = "cpu", nb::keep_alive<1, 2>())
      .def("input_names", &TrainingSession::inputNames, nb::arg("training"))
      .def("output_names", &TrainingSession::outputNames, nb::arg("training"))
      .def("step", &TrainingSession::step, nb::arg("training"),
           nb::arg("inputs"))
      .def("lazy_reset_grad", &TrainingSession::lazyResetGrad)
      .def("optimizer_step", &TrainingSession::optimizerStep)
      .def("set_learning_rate", &TrainingSession::setLearningRate)
      .def("get_learning_rate", &TrainingSession::getLearningRate)
      .def("register_linear_lr_scheduler",
           &TrainingSession::registerLinearLRScheduler)
      .def("scheduler_step", &TrainingSession::schedulerStep)
      .def("parameters_size", &TrainingSession::parametersSize)
      .def("copy_parameters_to_buffer",
           &TrainingSession::copyParametersToBuffer)
      .def("copy_buffer_to_parameters",
           &TrainingSession::copyBufferToParameters)
      .def("export_model_for_inferencing",
           &TrainingSession::exportModelForInferencing)
      .def("set_threads", &TrainingSession::setThreads);
}
