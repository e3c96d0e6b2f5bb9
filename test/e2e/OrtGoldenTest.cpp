// End to end on ORT's own MLP artifacts (conformance/ort/training_api),
// compiled at build time into models/ort_mlp:
//  * ORT's golden recipe through the C++ API (TrainStep, LazyResetGrad +
//    TrainStep, OptimizerStep + TrainStep) against loss_1.out / loss_2.out;
//  * gradient accumulation and LazyResetGrad semantics, and the optimizer's
//    step counter (docs/ORT-FACTS.md §2).

#include "E2EUtil.h"
#include "FloatMode.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace odt::e2e {
namespace {

constexpr double kGoldenRelTolerance = 1e-5;

class OrtMlpTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(openSession(
        modelDir("ort_mlp"), ortTrainingApiDir() + "/checkpoint.ckpt", session));
    module = session.module.get();
    std::string data = artifactDir("ort_mlp");
    std::map<std::string, Tensor> byName;
    ASSERT_NO_FATAL_FAILURE(readTensor(data + "/input-0.npy", byName["input-0"]));
    ASSERT_NO_FATAL_FAILURE(readTensor(data + "/labels.npy", byName["labels"]));
    ASSERT_EQ(module->trainingInputNames(),
              (std::vector<std::string>{"input-0", "labels"}));
    for (const std::string &name : module->trainingInputNames())
      inputs.push_back(byName[name]);
    ASSERT_EQ(inputs[1].dtype(), DataType::Int32);
  }

  /// ORT's published loss from loss_<index>.out (converted to .npy at build
  /// time by scripts/ort_text_to_npy.py).
  double golden(int index) {
    Tensor tensor;
    readTensor(artifactDir("ort_mlp") + "/loss_" + std::to_string(index) +
                   ".npy",
               tensor);
    EXPECT_EQ(tensor.size(), 1);
    return tensor.size() == 1 ? tensor.data<float>()[0] : NAN;
  }

  float trainStep() {
    Status status = module->trainStep(inputs, outputs);
    EXPECT_TRUE(status) << status.message();
    if (!status || outputs.empty() || outputs[0].size() != 1)
      return NAN;
    return outputs[0].data<float>()[0];
  }

  /// Copies of every trainable parameter's gradient buffer.
  std::map<std::string, Tensor> gradients() {
    std::map<std::string, Tensor> copies;
    for (const auto &param : module->parameters())
      if (param->requiresGrad)
        copies[param->name] = param->gradient.clone();
    return copies;
  }

  Session session;
  Module *module = nullptr;
  std::vector<Tensor> inputs, outputs;
};

void expectGolden(const char *what, float loss, double golden) {
  double relative = std::fabs(loss - golden) / std::fabs(golden);
  std::printf("[ golden   ] %s: odt %.9g, ORT %.9g, relative error %.3g\n",
              what, loss, golden, relative);
  EXPECT_LE(relative, kGoldenRelTolerance)
      << what << ": odt " << loss << ", ORT " << golden;
}

/// Element-wise bitwise-exact comparison of float tensors; `expected(i)`
/// gives the wanted value of element i.
template <typename F>
void expectExactly(const std::string &what, const Tensor &actual, F expected) {
  ASSERT_EQ(actual.dtype(), DataType::Float) << what;
  const float *a = actual.data<float>();
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < actual.size(); ++i)
    if (a[i] != expected(i)) {
      if (first < 0)
        first = i;
      ++mismatches;
    }
  EXPECT_EQ(mismatches, 0) << what << ": " << mismatches << " of "
                           << actual.size() << " elements differ; first at "
                           << first << ": "
                           << (first >= 0 ? a[first] : 0.0f) << " vs "
                           << (first >= 0 ? expected(first) : 0.0f);
}

TEST_F(OrtMlpTest, GoldenRecipeThroughTheApi) {
  Result<std::unique_ptr<Optimizer>> optimizer = Optimizer::create(*module);
  ASSERT_TRUE(optimizer) << optimizer.getStatus().message();
  ASSERT_TRUE((*optimizer)->setLearningRate(0.001f));
  double golden1 = golden(1), golden2 = golden(2);

  // 1. TrainStep
  float loss1 = trainStep();
  expectGolden("TrainStep", loss1, golden1);
  // 2. LazyResetGrad, TrainStep: the parameters have not changed.
  ASSERT_TRUE(module->lazyResetGrad());
  float again = trainStep();
  expectGolden("LazyResetGrad, TrainStep", again, golden1);
  EXPECT_EQ(again, loss1) << "same parameters and inputs, another loss";
  // 3. OptimizerStep (lr 0.001), TrainStep
  ASSERT_TRUE((*optimizer)->step());
  float loss2 = trainStep();
  expectGolden("OptimizerStep, TrainStep", loss2, golden2);
  EXPECT_EQ((*optimizer)->stepCount(), 1);
}

TEST_F(OrtMlpTest, AccumulationAndLazyResetGrad) {
  // Stale values in the buffers: the first TrainStep after construction must
  // overwrite them.
  for (const auto &param : module->parameters()) {
    ASSERT_TRUE(param->requiresGrad) << param->name;
    ASSERT_EQ(param->gradient.shape(), param->data.shape()) << param->name;
    float *g = param->gradient.data<float>();
    for (int64_t i = 0; i < param->gradient.size(); ++i)
      g[i] = 7.0f;
  }
  trainStep();
  std::map<std::string, Tensor> single = gradients();
  ASSERT_EQ(single.size(), 4u);
  for (auto &[name, g] : single) {
    double norm = 0;
    for (int64_t i = 0; i < g.size(); ++i) {
      ASSERT_TRUE(std::isfinite(g.data<float>()[i])) << name << "[" << i << "]";
      norm += std::fabs(g.data<float>()[i]);
    }
    EXPECT_GT(norm, 0) << name << ": an all-zero gradient proves nothing";
  }

  // Two more TrainSteps without a reset: exactly 3x. (g + g) + g rounds
  // once, like 3 * g, so float32 equality is exact.
  trainStep();
  trainStep();
  for (const auto &param : module->parameters()) {
    const float *g1 = single[param->name].data<float>();
    expectExactly("3 TrainSteps, " + param->name, param->gradient,
                  [&](int64_t i) { return 3.0f * g1[i]; });
  }

  // LazyResetGrad: the next TrainStep overwrites.
  ASSERT_TRUE(module->lazyResetGrad());
  trainStep();
  for (const auto &param : module->parameters()) {
    const float *g1 = single[param->name].data<float>();
    expectExactly("LazyResetGrad + TrainStep, " + param->name, param->gradient,
                  [&](int64_t i) { return g1[i]; });
  }

  // The optimizer's step count starts at 0 (no optimizer state in the
  // checkpoint) and grows by one per step; OptimizerStep leaves the
  // gradients alone.
  Result<std::unique_ptr<Optimizer>> optimizer = Optimizer::create(*module);
  ASSERT_TRUE(optimizer) << optimizer.getStatus().message();
  EXPECT_EQ((*optimizer)->stepCount(), 0);
  EXPECT_FLOAT_EQ((*optimizer)->getLearningRate(), kDefaultLearningRate);
  for (int64_t step = 1; step <= 3; ++step) {
    ASSERT_TRUE((*optimizer)->step());
    EXPECT_EQ((*optimizer)->stepCount(), step);
    ASSERT_NE(session.state->findOptimizerGroup("group0"), nullptr);
    EXPECT_EQ(session.state->findOptimizerGroup("group0")->step, step);
    for (const auto &param : module->parameters()) {
      const float *g1 = single[param->name].data<float>();
      expectExactly("after OptimizerStep " + std::to_string(step) + ", " +
                        param->name,
                    param->gradient, [&](int64_t i) { return g1[i]; });
    }
  }

  // The gradient after the optimizer steps still accumulates onto the kept
  // one: TrainStep (no reset) gives single + new, where `new` is the
  // gradient at the updated parameters.
  trainStep();
  std::map<std::string, Tensor> accumulated = gradients();
  ASSERT_TRUE(module->lazyResetGrad());
  trainStep();
  for (const auto &param : module->parameters()) {
    const float *g1 = single[param->name].data<float>();
    const float *fresh = param->gradient.data<float>();
    expectExactly("OptimizerStep, TrainStep accumulates, " + param->name,
                  accumulated[param->name],
                  [&](int64_t i) { return g1[i] + fresh[i]; });
  }
}

/// A batch made of rows of ORT's [2, 784] input (labels all 1).
std::vector<Tensor> batchOf(const Tensor &input, const std::vector<int> &rows) {
  const int64_t features = input.shape()[1];
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<Tensor> batch = {Tensor::zeros(DataType::Float, {n, features}),
                               Tensor::zeros(DataType::Int32, {n})};
  for (int64_t i = 0; i < n; ++i) {
    std::copy_n(input.data<float>() + rows[i] * features, features,
                batch[0].data<float>() + i * features);
    batch[1].data<int32_t>()[i] = 1;
  }
  return batch;
}

TEST_F(OrtMlpTest, OneModuleServesEveryBatchSize) {
  // The batch dim is symbolic: one Module, called with batches of 1, 2 and 7
  // in turn (train and eval interleaved), must bind it afresh each call.
  // With labels all 1, the mean loss of a batch is the mean of the per-row
  // losses, which batch-1 calls give.
  auto eval = [&](const std::vector<int> &rows) {
    std::vector<Tensor> batch = batchOf(inputs[0], rows), out;
    Status status = module->evalStep(batch, out);
    EXPECT_TRUE(status) << status.message();
    return status && out.size() == 1 && out[0].size() == 1
               ? double(out[0].data<float>()[0])
               : NAN;
  };
  auto train = [&](const std::vector<int> &rows) {
    std::vector<Tensor> batch = batchOf(inputs[0], rows), out;
    Status status = module->trainStep(batch, out);
    EXPECT_TRUE(status) << status.message();
    return status && !out.empty() && out[0].size() == 1
               ? double(out[0].data<float>()[0])
               : NAN;
  };
  double row0 = eval({0}), row1 = eval({1});
  double both = eval({0, 1});
  EXPECT_NEAR(both, (row0 + row1) / 2, 1e-6 * both);
  expectGolden("EvalStep, batch 2", float(both), golden(1));
  EXPECT_NEAR(train({0, 1, 0, 1, 0, 1, 0}), (4 * row0 + 3 * row1) / 7,
              1e-6 * row0);
  EXPECT_NEAR(eval({1, 1, 0, 1, 1, 1, 1}), (row0 + 6 * row1) / 7, 1e-6 * row1);
  EXPECT_NEAR(train({1}), row1, 1e-6 * row1);
  EXPECT_NEAR(eval({0}), row0, 1e-6 * row0);
  EXPECT_NEAR(train({0, 1}), both, 1e-6 * both);
  // 12 to 16 rows take the transposed product (C^T = W X^T) in each linear
  // layer; its sums run in another order than the batch-1 dot products.
  EXPECT_NEAR(eval({1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}),
              (10 * row0 + 4 * row1) / 14, 1e-5 * row0);
  EXPECT_NEAR(train({0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}), both,
              1e-5 * both);
}

// Products over a weight with at least 32 rows pack the weight's panels;
// odt-compile keeps them (one cache per weight and layout, shared by the
// train and eval steps) and a step refills a cache only when its parameter
// changed: after OptimizerStep, CopyBufferToParameters and CopyFrom (ORT's
// UpdateParameter) the losses equal those of a fresh session on the same
// values, bit for bit, and in a loop of TrainStep, OptimizerStep and two
// EvalSteps each cache is filled once per optimizer step.
TEST_F(OrtMlpTest, KeptPanelsFollowTheParameters) {
  std::vector<int> rows;
  for (int i = 0; i < 64; ++i)
    rows.push_back(i % 2);
  std::vector<Tensor> batch = batchOf(inputs[0], rows);
  auto loss = [&](Module &on, bool train) {
    std::vector<Tensor> out;
    Status status = train ? on.trainStep(batch, out) : on.evalStep(batch, out);
    EXPECT_TRUE(status) << status.message();
    return status && !out.empty() && out[0].size() == 1 ? out[0].data<float>()[0]
                                                         : NAN;
  };
  // EvalStep of a new session given this module's current parameters.
  auto freshEval = [&]() {
    Tensor values = Tensor::zeros(DataType::Float,
                                  {module->getParametersSize(false)});
    EXPECT_TRUE(module->copyParametersToBuffer(values, false));
    Session fresh;
    openSession(modelDir("ort_mlp"), ortTrainingApiDir() + "/checkpoint.ckpt",
                fresh);
    EXPECT_TRUE(fresh.module->copyBufferToParameters(values, false));
    return loss(*fresh.module, false);
  };
  Result<std::unique_ptr<Optimizer>> optimizer = Optimizer::create(*module);
  ASSERT_TRUE(optimizer) << optimizer.getStatus().message();

  EXPECT_EQ(module->panelFills(), 0);
  float first = loss(*module, false);
  EXPECT_EQ(module->panelFills(), 2); // fc1 and fc2 transposed
  EXPECT_EQ(loss(*module, false), first);
  EXPECT_EQ(module->panelFills(), 2);
  EXPECT_EQ(first, freshEval());

  loss(*module, true); // fills fc2 untransposed (dX of the hidden layer)
  EXPECT_EQ(module->panelFills(), 3);
  for (int step = 0; step < 3; ++step) {
    int64_t before = module->panelFills();
    ASSERT_TRUE((*optimizer)->step());
    ASSERT_TRUE(module->lazyResetGrad());
    float evaluated = loss(*module, false);
    EXPECT_EQ(loss(*module, false), evaluated);
    EXPECT_EQ(evaluated, freshEval()) << "after OptimizerStep " << step;
    loss(*module, true);
    EXPECT_EQ(module->panelFills() - before, 3)
        << "each cache once per optimizer step";
  }

  // New values through CopyBufferToParameters, then through CopyFrom.
  Tensor values = Tensor::zeros(DataType::Float, {module->getParametersSize()});
  ASSERT_TRUE(module->copyParametersToBuffer(values));
  for (int64_t i = 0; i < values.size(); ++i)
    values.data<float>()[i] *= 0.5f;
  float beforeCopy = loss(*module, false);
  ASSERT_TRUE(module->copyBufferToParameters(values));
  float halved = loss(*module, false);
  EXPECT_NE(halved, beforeCopy);
  EXPECT_EQ(halved, freshEval()) << "after CopyBufferToParameters";
  std::shared_ptr<Parameter> fc1 = module->findParameter("fc1.weight");
  ASSERT_NE(fc1, nullptr);
  Tensor doubled = fc1->data.clone();
  for (int64_t i = 0; i < doubled.size(); ++i)
    doubled.data<float>()[i] *= 2.0f;
  ASSERT_TRUE(fc1->copyFrom(doubled));
  float updated = loss(*module, false);
  EXPECT_NE(updated, halved);
  EXPECT_EQ(updated, freshEval()) << "after CopyFrom (UpdateParameter)";
}

// Steps flush denormal floats to zero unless the session keeps them, on the
// calling thread and on the pool's worker (2 threads: the 784x500 weight's
// update is cut between them), and the caller's own mode comes back after
// each step. A gradient of 1e-39 (a denormal) read as zero leaves AdamW's
// first moment at exactly 0; kept, the moment is 0.1 * 1e-39.
TEST_F(OrtMlpTest, DenormalsFlushedUnlessKept) {
  constexpr float kDenormal = 1e-39f;
  ASSERT_LT(kDenormal, std::numeric_limits<float>::min());
  ASSERT_GT(kDenormal, 0.0f);
  for (bool flush : {true, false}) {
    Session fresh;
    ASSERT_NO_FATAL_FAILURE(openSession(
        modelDir("ort_mlp"), ortTrainingApiDir() + "/checkpoint.ckpt", fresh));
    EXPECT_TRUE(fresh.module->flushesDenormals()); // the default
    fresh.module->setFlushDenormals(flush);
    ASSERT_TRUE(fresh.module->setThreads(2));
    Result<std::unique_ptr<Optimizer>> optimizer =
        Optimizer::create(*fresh.module);
    ASSERT_TRUE(optimizer) << optimizer.getStatus().message();
    for (const auto &param : fresh.module->parameters()) {
      float *gradient = param->gradient.data<float>();
      std::fill(gradient, gradient + param->gradient.size(), kDenormal);
    }
    uint64_t callerMode = currentFloatMode();
    ASSERT_TRUE((*optimizer)->step());
    EXPECT_EQ(currentFloatMode(), callerMode);
    OptimizerGroupState *group = fresh.state->findOptimizerGroup("group0");
    ASSERT_NE(group, nullptr);
    for (const auto &param : fresh.module->parameters()) {
      const Tensor &moment = group->parameterStates[param->name].momentums["momentum0"];
      ASSERT_EQ(moment.size(), param->data.size()) << param->name;
      const float *values = moment.data<float>();
      int64_t zeros = std::count(values, values + moment.size(), 0.0f);
      if (flush)
        EXPECT_EQ(zeros, moment.size()) << param->name << ": denormal gradients "
                                        << "must be read as zero";
      else
        EXPECT_EQ(zeros, 0) << param->name << ": denormals must be kept";
    }
    if (!flush) {
      const Tensor &moment =
          group->parameterStates["fc1.weight"].momentums["momentum0"];
      EXPECT_NEAR(moment.data<float>()[moment.size() - 1], 0.1f * kDenormal,
                  1e-45f);
    }
  }
}

} // namespace
} // namespace odt::e2e
