// Optimizer conformance against PyTorch: ORT's published AdamW (modes 0 and 1)
// and SGD trajectories (conformance/ort/test_data_generation/*/cpu/*.json),
// turned by make_optimizer_case.py into artifacts compiled at build time
// (models/optimizer_<case>). Each step feeds the JSON's gradient and compares
// the parameters (and AdamW's moments) after odt's OptimizerStep with
// PyTorch's, at |odt - torch| <= 1e-6 + 1e-5 * |torch|.
//
// Two ways in: writing Parameter::gradient directly (the optimizer alone),
// and through TrainStep, whose graph copies a user input into each gradient
// buffer with InPlaceAccumulatorV2 (the optimizer reading what the train step
// wrote).

#include "E2EUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace odt::e2e {
namespace {

constexpr double kAbsTolerance = 1e-6;
constexpr double kRelTolerance = 1e-5;
constexpr float kLearningRate = 1e-3f;

struct CaseInfo {
  std::string optimizer;
  int64_t steps = 0;
  std::vector<std::string> parameters;
};

/// One parameter's trajectory: [steps (+1), *shape] arrays.
struct Trajectory {
  Tensor params, grads, momentum0, momentum1;
};

/// Worst error seen for one compared quantity.
struct ErrorStats {
  double maxAbs = 0, maxRel = 0, maxRatio = 0; // ratio: err / allowed
  int64_t compared = 0, failures = 0;
};

/// A row of a [T, *shape] tensor as a pointer, with its element count.
const float *row(const Tensor &tensor, int64_t index, int64_t *count) {
  int64_t rows = tensor.shape().empty() ? 1 : tensor.shape()[0];
  *count = rows ? tensor.size() / rows : 0;
  return tensor.data<float>() + index * *count;
}

class OptimizerConformance : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    std::string name = std::string("optimizer_") + GetParam();
    artifacts = artifactDir(name);
    ASSERT_NO_FATAL_FAILURE(
        openSession(modelDir(name), artifacts + "/checkpoint", session));
    module = session.module.get();
    ASSERT_NO_FATAL_FAILURE(readCase());
    std::vector<std::string> names;
    for (const auto &param : module->parameters())
      names.push_back(param->name);
    ASSERT_EQ(names, info.parameters) << "parameter order of the compiled model";
    for (const std::string &param : info.parameters) {
      Trajectory &t = expected[param];
      std::string prefix = artifacts + "/expected/" + param;
      ASSERT_NO_FATAL_FAILURE(readTensor(prefix + ".params.npy", t.params));
      ASSERT_NO_FATAL_FAILURE(readTensor(prefix + ".grads.npy", t.grads));
      ASSERT_EQ(t.params.shape()[0], info.steps + 1) << param;
      ASSERT_EQ(t.grads.shape()[0], info.steps) << param;
      if (isAdamW()) {
        ASSERT_NO_FATAL_FAILURE(readTensor(prefix + ".momentum0.npy", t.momentum0));
        ASSERT_NO_FATAL_FAILURE(readTensor(prefix + ".momentum1.npy", t.momentum1));
      }
    }
    Result<std::unique_ptr<Optimizer>> created = Optimizer::create(*module);
    ASSERT_TRUE(created) << created.getStatus().message();
    optimizer = created.take();
    ASSERT_TRUE(optimizer->setLearningRate(kLearningRate));
    const OptimizerSpec &spec = session.model->optimizer();
    ASSERT_EQ(spec.kind, isAdamW() ? OptimizerKind::AdamW : OptimizerKind::SGD);
  }

  bool isAdamW() const { return info.optimizer == "adamw"; }

  void readCase() {
    std::ifstream in(artifacts + "/case.txt");
    ASSERT_TRUE(in) << "cannot read " << artifacts << "/case.txt";
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string key, value;
      fields >> key >> value;
      if (key == "optimizer")
        info.optimizer = value;
      else if (key == "steps")
        info.steps = std::stoll(value);
      else if (key == "parameter")
        info.parameters.push_back(value);
    }
    ASSERT_GT(info.steps, 0);
    ASSERT_FALSE(info.parameters.empty());
  }

  /// Compares `actual` with row `index` of `wanted`.
  void compare(const std::string &what, const Tensor &actual,
               const Tensor &wanted, int64_t index, ErrorStats &stats) {
    int64_t count = 0;
    const float *w = row(wanted, index, &count);
    ASSERT_EQ(actual.size(), count) << what;
    const float *a = actual.data<float>();
    for (int64_t i = 0; i < count; ++i) {
      double err = std::fabs(double(a[i]) - double(w[i]));
      double allowed = kAbsTolerance + kRelTolerance * std::fabs(double(w[i]));
      ++stats.compared;
      stats.maxAbs = std::max(stats.maxAbs, err);
      if (w[i] != 0)
        stats.maxRel = std::max(stats.maxRel, err / std::fabs(double(w[i])));
      stats.maxRatio = std::max(stats.maxRatio, err / allowed);
      if (!(err <= allowed) && stats.failures++ < 5)
        ADD_FAILURE() << what << "[" << i << "]: odt " << a[i] << ", torch "
                      << w[i] << ", |diff| " << err << " > " << allowed;
    }
  }

  void compareState(int64_t step) {
    for (const auto &param : module->parameters()) {
      const Trajectory &t = expected[param->name];
      std::string at = " after step " + std::to_string(step);
      compare(param->name + at, param->data, t.params, step, paramErrors);
      if (!isAdamW())
        continue;
      OptimizerGroupState *group = session.state->findOptimizerGroup("group0");
      ASSERT_NE(group, nullptr);
      auto &moments = group->parameterStates[param->name].momentums;
      ASSERT_EQ(moments.count("momentum0"), 1u) << param->name;
      ASSERT_EQ(moments.count("momentum1"), 1u) << param->name;
      compare(param->name + ".momentum0" + at, moments["momentum0"],
              t.momentum0, step, momentErrors[0]);
      compare(param->name + ".momentum1" + at, moments["momentum1"],
              t.momentum1, step, momentErrors[1]);
    }
  }

  void report(const char *how) {
    auto line = [&](const char *what, const ErrorStats &s) {
      std::printf("[ conform  ] %s %s %s: %lld values, max |err| %.3g, max "
                  "rel err %.3g, max err/allowed %.3g\n",
                  GetParam(), how, what, static_cast<long long>(s.compared),
                  s.maxAbs, s.maxRel, s.maxRatio);
    };
    line("params", paramErrors);
    if (isAdamW()) {
      line("momentum0", momentErrors[0]);
      line("momentum1", momentErrors[1]);
    }
  }

  std::string artifacts;
  Session session;
  Module *module = nullptr;
  std::unique_ptr<Optimizer> optimizer;
  CaseInfo info;
  std::map<std::string, Trajectory> expected;
  ErrorStats paramErrors, momentErrors[2];
};

TEST_P(OptimizerConformance, GradientWrittenDirectly) {
  // The checkpoint holds PyTorch's initial values exactly.
  compareState(0);
  ASSERT_EQ(paramErrors.maxAbs, 0.0);
  for (int64_t step = 0; step < info.steps; ++step) {
    for (const auto &param : module->parameters()) {
      int64_t count = 0;
      const float *g = row(expected[param->name].grads, step, &count);
      ASSERT_EQ(param->gradient.size(), count) << param->name;
      std::memcpy(param->gradient.data<float>(), g, count * sizeof(float));
    }
    ASSERT_TRUE(optimizer->step());
    EXPECT_EQ(optimizer->stepCount(), step + 1);
    ASSERT_NO_FATAL_FAILURE(compareState(step + 1));
  }
  report("direct");
}

TEST_P(OptimizerConformance, GradientThroughTrainStep) {
  // The training graph's user inputs are "<p>_grad_input", copied into the
  // gradient buffers; its loss is the sum of the first parameter.
  std::vector<std::string> names = module->trainingInputNames();
  ASSERT_EQ(names.size(), info.parameters.size());
  std::vector<Tensor> inputs(names.size()), outputs;
  for (int64_t step = 0; step < info.steps; ++step) {
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string param = info.parameters[i];
      ASSERT_EQ(names[i], param + "_grad_input");
      int64_t count = 0;
      const float *g = row(expected[param].grads, step, &count);
      inputs[i] = Tensor::copyOf(DataType::Float,
                                 module->findParameter(param)->data.shape(), g);
    }
    Status status = module->trainStep(inputs, outputs);
    ASSERT_TRUE(status) << status.message();
    const Tensor &first = module->parameters()[0]->data;
    double sum = 0;
    for (int64_t i = 0; i < first.size(); ++i)
      sum += first.data<float>()[i];
    ASSERT_EQ(outputs.at(0).size(), 1);
    EXPECT_NEAR(outputs[0].data<float>()[0], sum, 1e-5 * (1 + std::fabs(sum)));
    ASSERT_TRUE(optimizer->step());
    ASSERT_TRUE(module->lazyResetGrad());
    ASSERT_NO_FATAL_FAILURE(compareState(step + 1));
  }
  EXPECT_EQ(optimizer->stepCount(), info.steps);
  report("train-step");
}

INSTANTIATE_TEST_SUITE_P(Torch, OptimizerConformance,
                         ::testing::Values("adamw_single_weight_mode_0",
                                           "adamw_single_weight_mode_1",
                                           "adamw_multiple_weights_mode_0",
                                           "adamw_multiple_weights_mode_1",
                                           "sgd_single_weight",
                                           "sgd_multiple_weights"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param);
                         });

} // namespace
} // namespace odt::e2e
