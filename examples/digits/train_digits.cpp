// train_digits.cpp — odt's main job: trains an MLP on scikit-learn's
// handwritten digits through odt's public C++ API (odt/odt.hpp, libodt.so),
// the way an application would: epochs of shuffled mini-batches, held-out
// accuracy after each epoch, then ExportModelForInferencing.
//
//   train_digits MODEL_DIR ARTIFACT_DIR DATA_DIR OUT_DIR [EPOCHS [BATCH [LR]]]
//
// MODEL_DIR     odt-compile's output for the artifacts (libmodel.so)
// ARTIFACT_DIR  generate-artifacts' output (the initial checkpoint)
// DATA_DIR      make_digits.py's output: {train,test}_{pixels,labels}.npy
// OUT_DIR       receives trained.ckpt and digits.onnx (the inference model,
//               output "logits")
// EPOCHS (default 20), BATCH rows per step (default 32), LR (default 0.01)
//
// Prints one line per epoch: the mean training loss and the test set's loss
// and accuracy (the eval model's logits, argmax against the labels).

#include "../cpp/npy.hpp"
#include "odt/odt.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using examples::Npy;
using examples::readNpy;

struct Dataset {
  Npy pixels, labels;
  int64_t rows() const { return pixels.shape.at(0); }
  int64_t features() const { return pixels.shape.at(1); }
};

Dataset loadDataset(const std::string &dataDir, const std::string &split) {
  Dataset data{readNpy(dataDir + "/" + split + "_pixels.npy"),
               readNpy(dataDir + "/" + split + "_labels.npy")};
  if (data.pixels.type != ODT_FLOAT || data.pixels.shape.size() != 2 ||
      data.labels.type != ODT_INT64 || data.labels.shape.size() != 1 ||
      data.labels.shape[0] != data.rows())
    throw std::runtime_error(split + ": expected float32 pixels [N, F] and "
                             "int64 labels [N]");
  return data;
}

/// The share of rows whose largest logit is at their label.
double accuracy(const Odt::Value &logits, const Npy &labels) {
  std::vector<int64_t> shape = logits.GetShape();
  const float *values = logits.GetTensorData<float>();
  const auto *truth = reinterpret_cast<const int64_t *>(labels.data.data());
  int64_t correct = 0;
  for (int64_t row = 0; row < shape.at(0); ++row) {
    const float *scores = values + row * shape.at(1);
    correct += std::max_element(scores, scores + shape[1]) - scores == truth[row];
  }
  return double(correct) / double(shape[0]);
}

int run(int argc, char **argv) {
  if (argc < 5 || argc > 8) {
    std::fprintf(stderr,
                 "usage: %s MODEL_DIR ARTIFACT_DIR DATA_DIR OUT_DIR "
                 "[EPOCHS [BATCH [LR]]]\n",
                 argv[0]);
    return 2;
  }
  std::string modelDir = argv[1], artifactDir = argv[2], dataDir = argv[3],
              outDir = argv[4];
  long epochs = argc > 5 ? std::strtol(argv[5], nullptr, 10) : 20;
  long batch = argc > 6 ? std::strtol(argv[6], nullptr, 10) : 32;
  float lr = argc > 7 ? std::strtof(argv[7], nullptr) : 0.01f;
  if (epochs <= 0 || batch <= 0 || !(lr > 0.0f)) {
    std::fprintf(stderr, "train_digits: error: EPOCHS and BATCH must be "
                         "positive integers and LR a positive number\n");
    return 2;
  }

  Dataset train = loadDataset(dataDir, "train");
  Dataset test = loadDataset(dataDir, "test");
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(artifactDir + "/checkpoint");
  Odt::TrainingSession session(state, modelDir);
  session.SetLearningRate(lr);
  std::printf("digits: %lld training images, %lld test images; %zu "
              "parameters; %ld epochs of batches of %ld, AdamW lr %g\n",
              static_cast<long long>(train.rows()),
              static_cast<long long>(test.rows()),
              session.GetParametersSize(true), epochs, batch, double(lr));

  // The test set in one eval step: inputs over the files' data.
  std::vector<Odt::Value> testInputs;
  testInputs.push_back(Odt::Value::CreateTensor(
      ODT_FLOAT, test.pixels.data.data(), test.pixels.data.size(),
      test.pixels.shape));
  testInputs.push_back(Odt::Value::CreateTensor(
      ODT_INT64, test.labels.data.data(), test.labels.data.size(),
      test.labels.shape));

  const int64_t features = train.features();
  const auto *pixels = reinterpret_cast<const float *>(train.pixels.data.data());
  const auto *labels = reinterpret_cast<const int64_t *>(train.labels.data.data());
  std::vector<int64_t> order(train.rows());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 shuffler(0); // the same batches on every run
  std::vector<float> batchPixels;
  std::vector<int64_t> batchLabels;
  std::vector<Odt::Value> outputs;
  double finalAccuracy = 0.0;
  for (long epoch = 1; epoch <= epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), shuffler);
    double lossSum = 0.0;
    long steps = 0;
    for (int64_t first = 0; first < train.rows(); first += batch) {
      int64_t rows = std::min<int64_t>(batch, train.rows() - first);
      batchPixels.resize(rows * features);
      batchLabels.resize(rows);
      for (int64_t r = 0; r < rows; ++r) {
        int64_t source = order[first + r];
        std::memcpy(&batchPixels[r * features], pixels + source * features,
                    features * sizeof(float));
        batchLabels[r] = labels[source];
      }
      std::vector<Odt::Value> inputs;
      inputs.push_back(Odt::Value::CreateTensor(
          batchPixels.data(), batchPixels.size(), {rows, features}));
      inputs.push_back(Odt::Value::CreateTensor(batchLabels.data(),
                                                batchLabels.size(), {rows}));
      // Output buffers are reused while their shape fits; the shorter last
      // batch of an epoch needs new ones.
      if (!outputs.empty() && outputs[1].GetShape()[0] != rows)
        outputs.clear();
      session.TrainStep(inputs, outputs);
      lossSum += outputs.at(0).GetTensorData<float>()[0];
      ++steps;
      session.OptimizerStep();
      session.LazyResetGrad();
    }
    std::vector<Odt::Value> evaluated = session.EvalStep(testInputs);
    finalAccuracy = accuracy(evaluated.at(1), test.labels);
    std::printf("epoch %2ld  train loss %.4f  test loss %.4f  test accuracy "
                "%.1f%%\n",
                epoch, lossSum / double(steps),
                double(evaluated.at(0).GetTensorData<float>()[0]),
                100.0 * finalAccuracy);
    std::fflush(stdout);
  }

  std::string checkpoint = outDir + "/trained.ckpt";
  Odt::CheckpointState::SaveCheckpoint(state, checkpoint,
                                       /*include_optimizer_state=*/true);
  std::string inference = outDir + "/digits.onnx";
  session.ExportModelForInferencing(inference, {"logits"});
  std::printf("saved %s; exported %s (pixels [N, %lld] -> logits [N, 10])\n",
              checkpoint.c_str(), inference.c_str(),
              static_cast<long long>(features));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &error) {
    std::fflush(stdout);
    std::fprintf(stderr, "train_digits: error: %s\n", error.what());
    return 1;
  }
}
