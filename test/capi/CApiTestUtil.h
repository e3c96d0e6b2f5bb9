// Helpers for the C API tests: paths of the models compiled at build time,
// owning handles for the C objects, status checks, and the inputs of ORT's
// training_api test and of the default model. Public headers only (odt.h);
// no runtime internals.

#ifndef ODT_TEST_CAPI_CAPITESTUTIL_H
#define ODT_TEST_CAPI_CAPITESTUTIL_H

#include "odt/odt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace capi {

// ---- paths ----------------------------------------------------------------

/// make_default.py's output (checkpoint, nominal_checkpoint, *.npy).
inline std::string defaultData() { return ODT_CAPI_DEFAULT_DATA; }
/// odt-compile's output for the default model.
inline std::string defaultModel() { return ODT_CAPI_DEFAULT_MODEL; }
/// models/<name>: ort_mlp, sgd, frozen, linked.
inline std::string modelDir(const std::string &name) {
  return std::string(ODT_CAPI_MODELS_DIR) + "/" + name;
}
/// make_capi_models.py's output: sgd/, frozen/, external/.
inline std::string artifact(const std::string &path) {
  return std::string(ODT_CAPI_ARTIFACTS_DIR) + "/" + path;
}
/// ORT's training_api test data, read in place.
inline std::string ortData(const std::string &file) {
  return std::string(ODT_ORT_TRAINING_API_DIR) + "/" + file;
}

inline bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

/// A fresh empty folder for the running test: tmp/<Suite>.<Test>.
inline std::string freshDir() {
  const ::testing::TestInfo *test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = std::string(ODT_CAPI_TMP_DIR) + "/" +
                    test->test_suite_name() + "." + test->name();
  std::string command = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  if (std::system(command.c_str()) != 0)
    ADD_FAILURE() << "cannot make " << dir;
  return dir;
}

/// The names in `dir`, sorted.
inline std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  std::string command = "ls -A '" + dir + "' 2>/dev/null";
  if (FILE *pipe = ::popen(command.c_str(), "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, pipe)) {
      std::string name(line);
      while (!name.empty() && (name.back() == '\n' || name.back() == '\r'))
        name.pop_back();
      names.push_back(name);
    }
    ::pclose(pipe);
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

inline void writeFile(const std::string &path,
                      const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good()) << "cannot write " << path;
}

// ---- owning handles --------------------------------------------------------

struct StatusDeleter {
  void operator()(OdtStatus *s) const { OdtReleaseStatus(s); }
};
struct ValueDeleter {
  void operator()(OdtValue *v) const { OdtReleaseValue(v); }
};
struct StateDeleter {
  void operator()(OdtCheckpointState *s) const { OdtReleaseCheckpointState(s); }
};
struct SessionDeleter {
  void operator()(OdtTrainingSession *s) const { OdtReleaseTrainingSession(s); }
};
using Status = std::unique_ptr<OdtStatus, StatusDeleter>;
using Value = std::unique_ptr<OdtValue, ValueDeleter>;
using State = std::unique_ptr<OdtCheckpointState, StateDeleter>;
using Session = std::unique_ptr<OdtTrainingSession, SessionDeleter>;

// ---- status checks ---------------------------------------------------------

/// Success if `status` is NULL; otherwise fails with its message. Releases it.
inline ::testing::AssertionResult Ok(OdtStatus *status) {
  Status owned(status);
  if (!status)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "odt error: " << OdtGetErrorMessage(status);
}

inline std::string lower(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// Success if `status` is an error whose message contains every one of
/// `words` (case-insensitive). Releases it. The message is printed, so that
/// the test log shows what users would read.
inline ::testing::AssertionResult
Fails(OdtStatus *status, std::initializer_list<std::string> words) {
  Status owned(status);
  if (!status)
    return ::testing::AssertionFailure() << "succeeded, expected an error";
  std::string message = OdtGetErrorMessage(status);
  if (message.empty())
    return ::testing::AssertionFailure() << "error with an empty message";
  std::string haystack = lower(message);
  for (const std::string &word : words)
    if (haystack.find(lower(word)) == std::string::npos)
      return ::testing::AssertionFailure()
             << "the message lacks '" << word << "': " << message;
  std::printf("[ message  ] %s\n", message.c_str());
  return ::testing::AssertionSuccess();
}

// ---- objects ----------------------------------------------------------------

inline State loadState(const std::string &path) {
  OdtCheckpointState *state = nullptr;
  EXPECT_TRUE(Ok(OdtLoadCheckpoint(path.c_str(), &state))) << path;
  return State(state);
}

inline Session createSession(OdtCheckpointState *state,
                             const std::string &model) {
  OdtTrainingSession *session = nullptr;
  EXPECT_TRUE(Ok(OdtCreateTrainingSession(state, model.c_str(), &session)))
      << model;
  return Session(session);
}

/// An owned tensor holding a copy of `data`.
template <typename T>
Value tensor(OdtDataType type, const std::vector<int64_t> &shape,
             const std::vector<T> &data) {
  OdtValue *value = nullptr;
  EXPECT_TRUE(Ok(OdtCreateTensor(type, shape.data(), shape.size(), &value)));
  if (!value)
    return Value();
  void *out = nullptr;
  EXPECT_TRUE(Ok(OdtGetTensorData(value, &out)));
  size_t count = 0;
  EXPECT_TRUE(Ok(OdtGetTensorElementCount(value, &count)));
  EXPECT_EQ(count, data.size());
  if (out && count == data.size() && !data.empty())
    std::memcpy(out, data.data(), data.size() * sizeof(T));
  return Value(value);
}

inline Value floats(const std::vector<int64_t> &shape,
                    const std::vector<float> &data) {
  return tensor(ODT_FLOAT, shape, data);
}

/// A copy of a tensor's elements.
template <typename T> std::vector<T> elements(const OdtValue *value) {
  size_t count = 0;
  EXPECT_TRUE(Ok(OdtGetTensorElementCount(value, &count)));
  void *data = nullptr;
  EXPECT_TRUE(Ok(OdtGetTensorData(const_cast<OdtValue *>(value), &data)));
  if (!data)
    return {};
  const T *typed = static_cast<const T *>(data);
  return std::vector<T>(typed, typed + count);
}

inline std::vector<int64_t> shapeOf(const OdtValue *value) {
  size_t rank = 0;
  const int64_t *dims = nullptr;
  EXPECT_TRUE(Ok(OdtGetTensorShape(value, &rank, &dims)));
  return rank ? std::vector<int64_t>(dims, dims + rank)
              : std::vector<int64_t>();
}

/// A copy of a parameter's values (empty on failure).
inline std::vector<float> parameter(const OdtCheckpointState *state,
                                    const std::string &name) {
  OdtValue *value = nullptr;
  EXPECT_TRUE(Ok(OdtGetParameter(state, name.c_str(), &value))) << name;
  Value owned(value);
  return value ? elements<float>(value) : std::vector<float>();
}

/// All parameters of a model, concatenated in `names` order.
inline std::vector<float> parameters(const OdtCheckpointState *state,
                                     const std::vector<std::string> &names) {
  std::vector<float> all;
  for (const std::string &name : names) {
    std::vector<float> one = parameter(state, name);
    all.insert(all.end(), one.begin(), one.end());
  }
  return all;
}

// ---- inputs -------------------------------------------------------------------

/// The parameters of both MLPs in training-graph order.
inline const std::vector<std::string> kMlpParameters = {
    "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

/// A minimal .npy reader (format 1.x, '<f4', '<i4' or '<i8', C order).
inline Value readNpy(const std::string &path) {
  std::vector<uint8_t> bytes = readFile(path);
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    ADD_FAILURE() << path << " is not a .npy file";
    return Value();
  }
  size_t headerLen = bytes[8] | size_t(bytes[9]) << 8;
  std::string header(bytes.begin() + 10, bytes.begin() + 10 + headerLen);
  OdtDataType type = header.find("'<f4'") != std::string::npos   ? ODT_FLOAT
                     : header.find("'<i8'") != std::string::npos ? ODT_INT64
                     : header.find("'<i4'") != std::string::npos ? ODT_INT32
                                                                 : ODT_UNDEFINED;
  EXPECT_NE(type, ODT_UNDEFINED) << path;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << path;
  std::vector<int64_t> shape;
  const char *p = header.c_str() + header.find("'shape': (") + 10;
  while (*p != ')') {
    char *next = nullptr;
    shape.push_back(std::strtoll(p, &next, 10));
    p = next;
    while (*p == ',' || *p == ' ')
      ++p;
  }
  OdtValue *value = nullptr;
  EXPECT_TRUE(Ok(OdtCreateTensor(type, shape.data(), shape.size(), &value)));
  void *data = nullptr;
  EXPECT_TRUE(Ok(OdtGetTensorData(value, &data)));
  size_t bytesNeeded = bytes.size() - 10 - headerLen;
  if (data)
    std::memcpy(data, bytes.data() + 10 + headerLen, bytesNeeded);
  return Value(value);
}

/// A model's inputs, owned, and the array of pointers the C API takes.
struct Inputs {
  std::vector<Value> owned;
  std::vector<const OdtValue *> pointers;
  void add(Value value) {
    pointers.push_back(value.get());
    owned.push_back(std::move(value));
  }
  size_t size() const { return pointers.size(); }
  const OdtValue *const *data() const { return pointers.data(); }
};

/// The default model's training (or eval) data.
inline Inputs defaultInputs(bool training = true) {
  Inputs inputs;
  std::string prefix = defaultData() + (training ? "/train_" : "/eval_");
  inputs.add(readNpy(prefix + "input.npy"));
  inputs.add(readNpy(prefix + "labels.npy"));
  return inputs;
}

/// ORT's TrainingApiTest inputs: input-0.in as float [2, 784], labels int32
/// {1, 1}.
inline Inputs ortInputs() {
  std::vector<uint8_t> bytes = readFile(ortData("input-0.in"));
  std::string text(bytes.begin(), bytes.end());
  std::vector<float> values;
  const char *p = text.c_str() + text.find('[') + 1;
  while (*p && *p != ']') {
    char *next = nullptr;
    values.push_back(std::strtof(p, &next));
    if (next == p)
      break;
    p = next;
    while (*p == ',' || std::isspace(static_cast<unsigned char>(*p)))
      ++p;
  }
  EXPECT_EQ(values.size(), 2u * 784u);
  Inputs inputs;
  inputs.add(floats({2, 784}, values));
  inputs.add(tensor<int32_t>(ODT_INT32, {2}, {1, 1}));
  return inputs;
}

/// ORT's golden loss from loss_<index>.out.
inline float ortGoldenLoss(int index) {
  std::vector<uint8_t> bytes =
      readFile(ortData("loss_" + std::to_string(index) + ".out"));
  std::string text(bytes.begin(), bytes.end());
  size_t line = text.find('\n');
  return std::strtof(text.c_str() + (line == std::string::npos ? 0 : line + 1),
                     nullptr);
}

/// One TrainStep; returns the loss (NaN on failure).
inline float trainStep(OdtTrainingSession *session, const Inputs &inputs) {
  size_t count = 0;
  EXPECT_TRUE(Ok(OdtGetTrainingModelOutputCount(session, &count)));
  std::vector<OdtValue *> outputs(count, nullptr);
  bool ok = Ok(OdtTrainStep(session, inputs.size(), inputs.data(), count,
                            outputs.data()));
  EXPECT_TRUE(ok);
  float loss = NAN;
  if (ok && count > 0)
    loss = elements<float>(outputs[0]).at(0);
  for (OdtValue *v : outputs)
    OdtReleaseValue(v);
  return loss;
}

/// One EvalStep; returns the loss.
inline float evalStep(OdtTrainingSession *session, const Inputs &inputs) {
  size_t count = 0;
  EXPECT_TRUE(Ok(OdtGetEvalModelOutputCount(session, &count)));
  std::vector<OdtValue *> outputs(count, nullptr);
  bool ok = Ok(OdtEvalStep(session, inputs.size(), inputs.data(), count,
                           outputs.data()));
  EXPECT_TRUE(ok);
  float loss = NAN;
  if (ok && count > 0)
    loss = elements<float>(outputs[0]).at(0);
  for (OdtValue *v : outputs)
    OdtReleaseValue(v);
  return loss;
}

/// `steps` × {TrainStep, OptimizerStep, LazyResetGrad}; the losses.
inline std::vector<float> train(OdtTrainingSession *session,
                                const Inputs &inputs, int steps) {
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    losses.push_back(trainStep(session, inputs));
    EXPECT_TRUE(Ok(OdtOptimizerStep(session)));
    EXPECT_TRUE(Ok(OdtLazyResetGrad(session)));
  }
  return losses;
}

/// Bitwise equality of float vectors (NaN-safe, -0 != +0).
inline bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

} // namespace capi

#endif // ODT_TEST_CAPI_CAPITESTUTIL_H
