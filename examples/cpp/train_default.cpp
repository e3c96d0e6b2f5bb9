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

#include "npy.hpp"
#include "odt/odt.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using examples::Npy;
using examples::readNpy;

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
