// train_default.cpp — trains odt's built-in default model (examples/default)
// through odt's public C++ header only: odt/odt.hpp (over odt.h) and
// libodt.so. The same program as examples/c/train_default.c:
//
//   train_default_cpp MODEL_DIR DATA_DIR OUT_DIR [STEPS [LR]]
//
// MODEL_DIR  odt-compile's output for the default model (libmodel.so)
// DATA_DIR   make_default.py's output: checkpoint, train_<input>.npy and
//            eval_<input>.npy for every model input (input, labels)
// OUT_DIR    receives trained.ckpt (with optimizer state) and
//            inference.onnx (ExportModelForInferencing, output "logits")
// STEPS      training steps (default 20), LR the learning rate (default 0.01)
//
// Each step is TrainStep, OptimizerStep, LazyResetGrad, as `odt-run train`
// does, and prints "step N loss L" (9 significant digits: the exact float).
// Then "eval loss L". Any error is printed on stderr; the exit status is 1.

#include "odt/odt.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// A .npy file (format 1.x, little-endian float32, int32 or int64, C order)
/// and a tensor over its data.
struct Npy {
  Odt::DataType type = ODT_UNDEFINED;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// The text after `key` in the header, or throws.
std::string field(const std::string &header, const std::string &key,
                  const std::string &path) {
  size_t at = header.find(key);
  if (at == std::string::npos)
    throw std::runtime_error("'" + path + "': no " + key + " in the header");
  at = header.find_first_not_of(' ', at + key.size());
  return at == std::string::npos ? std::string() : header.substr(at);
}

Npy readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw std::runtime_error("'" + path + "' is not a .npy file");
  if (bytes[6] != 1)
    throw std::runtime_error("'" + path + "': .npy format version " +
                             std::to_string(bytes[6]) +
                             ", only 1.x is supported");
  size_t headerLen = bytes[8] | size_t(bytes[9]) << 8;
  if (10 + headerLen > bytes.size())
    throw std::runtime_error("'" + path + "': truncated header");
  std::string header(bytes.begin() + 10, bytes.begin() + 10 + headerLen);

  Npy npy;
  size_t elementSize = 0;
  std::string descr = field(header, "'descr':", path);
  if (descr.compare(0, 5, "'<f4'") == 0)
    npy.type = ODT_FLOAT, elementSize = 4;
  else if (descr.compare(0, 5, "'<i4'") == 0)
    npy.type = ODT_INT32, elementSize = 4;
  else if (descr.compare(0, 5, "'<i8'") == 0)
    npy.type = ODT_INT64, elementSize = 8;
  else
    throw std::runtime_error("'" + path +
                             "': dtype must be '<f4', '<i4' or '<i8'");
  if (field(header, "'fortran_order':", path).compare(0, 5, "False") != 0)
    throw std::runtime_error("'" + path + "': only C order is supported");
  std::string shape = field(header, "'shape':", path);
  if (shape.empty() || shape[0] != '(')
    throw std::runtime_error("'" + path + "': bad shape in the header");
  size_t count = 1;
  for (const char *p = shape.c_str() + 1;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      break;
    char *next = nullptr;
    long long dim = std::strtoll(p, &next, 10);
    if (next == p || dim < 0 || (dim && count > SIZE_MAX / 8 / size_t(dim)))
      throw std::runtime_error("'" + path + "': bad shape in the header");
    npy.shape.push_back(dim);
    count *= size_t(dim);
    p = next;
  }
  if (bytes.size() - 10 - headerLen != count * elementSize)
    throw std::runtime_error("'" + path + "': the file holds " +
                             std::to_string(bytes.size() - 10 - headerLen) +
                             " data bytes, the header says " +
                             std::to_string(count * elementSize));
  npy.data.assign(bytes.begin() + 10 + headerLen, bytes.end());
  return npy;
}

/// The model's inputs from DATA_DIR/<prefix>_<name>.npy: the files' data
/// (kept alive here) and tensors over them.
struct Inputs {
  std::vector<Npy> files;
  std::vector<Odt::Value> values;
};

Inputs loadInputs(const Odt::TrainingSession &session, bool training,
                  const std::string &dataDir) {
  Inputs inputs;
  std::vector<std::string> names = session.InputNames(training);
  inputs.files.reserve(names.size()); // no reallocation: values point here
  for (const std::string &name : names) {
    Npy &file = inputs.files.emplace_back(readNpy(
        dataDir + "/" + (training ? "train_" : "eval_") + name + ".npy"));
    inputs.values.push_back(Odt::Value::CreateTensor(
        file.type, file.data.data(), file.data.size(), file.shape));
  }
  return inputs;
}

float scalar(const Odt::Value &value) {
  if (value.GetElementCount() != 1)
    throw std::runtime_error("the first output is not a scalar");
  return value.GetTensorData<float>()[0];
}

int run(int argc, char **argv) {
  if (argc < 4 || argc > 6) {
    std::fprintf(stderr, "usage: %s MODEL_DIR DATA_DIR OUT_DIR [STEPS [LR]]\n",
                 argv[0]);
    return 2;
  }
  std::string modelDir = argv[1], dataDir = argv[2], outDir = argv[3];
  long steps = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 20;
  float lr = argc > 5 ? std::strtof(argv[5], nullptr) : 0.01f;
  if (steps <= 0 || !(lr > 0.0f)) {
    std::fprintf(stderr, "train_default_cpp: error: STEPS must be a positive "
                         "integer and LR a positive number\n");
    return 2;
  }

  // Declared before the session, so destroyed after it: the session uses
  // the state's parameters.
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(dataDir + "/checkpoint");
  Odt::TrainingSession session(state, modelDir);
  std::printf("parameters: %zu (trainable)\n", session.GetParametersSize(true));

  // Training. The outputs vector is reused: after the first step the loss
  // tensor is written in place.
  Inputs train = loadInputs(session, true, dataDir);
  std::vector<Odt::Value> outputs;
  session.SetLearningRate(lr);
  for (long step = 1; step <= steps; ++step) {
    session.TrainStep(train.values, outputs);
    float loss = scalar(outputs.at(0));
    session.OptimizerStep();
    session.LazyResetGrad();
    std::printf("step %ld loss %.9g\n", step, loss);
  }

  // Evaluation on held-out data.
  Inputs eval = loadInputs(session, false, dataDir);
  std::vector<Odt::Value> evalOutputs = session.EvalStep(eval.values);
  std::printf("eval loss %.9g\n", scalar(evalOutputs.at(0)));

  // The trained state, then an inference model.
  std::string checkpoint = outDir + "/trained.ckpt";
  Odt::CheckpointState::SaveCheckpoint(state, checkpoint,
                                       /*include_optimizer_state=*/true);
  std::printf("saved %s\n", checkpoint.c_str());
  std::string inference = outDir + "/inference.onnx";
  session.ExportModelForInferencing(inference, {"logits"});
  std::printf("exported %s\n", inference.c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &error) {
    std::fflush(stdout);
    std::fprintf(stderr, "train_default_cpp: error: %s\n", error.what());
    return 1;
  }
}
