// Learning-rate schedulers: ORT's LinearLRScheduler against ORT's own
// reference files (read in place from ODT_SHARED_DIR) with ORT's test
// procedure, the cosine and constant warm-up schedules against their formulas
// written out again here, argument validation, and rebuilding a scheduler
// from its config as a checkpoint restore does.

#include "LRScheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace odt {
namespace {

using ::testing::HasSubstr;

/// An optimizer stand-in: a step counter and a learning rate.
class FakeTarget : public LearningRateTarget {
public:
  int64_t stepCount() const override { return steps; }
  Status setLearningRate(float lr) override {
    ++setCalls;
    if (refuse)
      return Status::error("fake target refuses learning rates");
    learningRate = lr;
    return Status::ok();
  }
  float getLearningRate() const override { return learningRate; }

  /// What OptimizerStep does to the count when the weights were updated.
  void optimizerStep() { ++steps; }

  int64_t steps = 0;
  float learningRate = 0.001f;
  bool refuse = false;
  int setCalls = 0;
};

// ----------------------------------------------------------------------------
// A minimal JSON reader for the reference files: arrays and numbers only
// (whitespace anywhere between tokens), which is all they hold.
// ----------------------------------------------------------------------------

struct JsonValue {
  bool isArray = false;
  double number = 0.0;
  std::vector<JsonValue> items;
};

class JsonReader {
public:
  explicit JsonReader(std::string text) : text(std::move(text)) {}

  /// Parses the whole text as one value; false (with error()) on malformed
  /// input or trailing characters.
  bool parse(JsonValue &out) {
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected trailing characters");
    return true;
  }
  const std::string &error() const { return message; }

private:
  bool fail(const std::string &what) {
    if (message.empty())
      message = what + " at offset " + std::to_string(pos);
    return false;
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool parseValue(JsonValue &out, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= text.size())
      return fail("unexpected end of input");
    if (text[pos] == '[')
      return parseArray(out, depth);
    return parseNumber(out);
  }
  bool parseArray(JsonValue &out, int depth) {
    out.isArray = true;
    ++pos; // '['
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    for (;;) {
      JsonValue item;
      if (!parseValue(item, depth + 1))
        return false;
      out.items.push_back(std::move(item));
      skipSpace();
      if (pos >= text.size())
        return fail("unterminated array");
      if (text[pos] == ',') {
        ++pos;
        continue;
      }
      if (text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail(std::string("expected ',' or ']' but found '") + text[pos] + "'");
    }
  }
  bool parseNumber(JsonValue &out) {
    // JSON's number grammar, checked loosely; strtod does the conversion.
    size_t start = pos;
    auto isNumberChar = [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' ||
             c == 'e' || c == 'E';
    };
    while (pos < text.size() && isNumberChar(text[pos]))
      ++pos;
    if (pos == start)
      return fail(std::string("expected a number or '[' but found '") + text[start] + "'");
    std::string token = text.substr(start, pos - start);
    char *end = nullptr;
    errno = 0;
    out.number = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size() || errno == ERANGE || !std::isfinite(out.number)) {
      pos = start;
      return fail("malformed number '" + token + "'");
    }
    return true;
  }

  std::string text;
  size_t pos = 0;
  std::string message;
};

/// One reference entry: the optimizer step count and the learning rates
/// (one per parameter group) expected at it.
struct ReferencePoint {
  int64_t step;
  std::vector<double> learningRates;
};

/// Reads a [[step, [lr, ...]], ...] file; false with `error` on any deviation.
bool readReference(const std::string &path, std::vector<ReferencePoint> &points,
                   std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  JsonReader reader(std::string(std::istreambuf_iterator<char>(in), {}));
  JsonValue root;
  if (!reader.parse(root)) {
    error = path + ": " + reader.error();
    return false;
  }
  if (!root.isArray) {
    error = path + ": the top level is not a list";
    return false;
  }
  for (size_t i = 0; i < root.items.size(); ++i) {
    const JsonValue &entry = root.items[i];
    std::string where = path + ": entry " + std::to_string(i);
    if (!entry.isArray || entry.items.size() != 2 || entry.items[0].isArray ||
        !entry.items[1].isArray) {
      error = where + " is not [step, [learning rates]]";
      return false;
    }
    double step = entry.items[0].number;
    if (step != std::floor(step) || step < 0 || step > 1e15) {
      error = where + ": the step is not a non-negative integer";
      return false;
    }
    ReferencePoint point{static_cast<int64_t>(step), {}};
    for (const JsonValue &lr : entry.items[1].items) {
      if (lr.isArray) {
        error = where + ": a learning rate is a list";
        return false;
      }
      point.learningRates.push_back(lr.number);
    }
    if (point.learningRates.empty()) {
      error = where + ": no learning rate";
      return false;
    }
    points.push_back(std::move(point));
  }
  return true;
}

TEST(LRSchedulerJsonReaderTest, ReadsNestedListsAndRejectsMalformedText) {
  JsonValue value;
  JsonReader good(" [ [0, [0.0]], [1 ,[ 1e-3 , -2.5E+2 ]] ]\n");
  ASSERT_TRUE(good.parse(value)) << good.error();
  ASSERT_EQ(value.items.size(), 2u);
  EXPECT_EQ(value.items[1].items[1].items[0].number, 1e-3);
  EXPECT_EQ(value.items[1].items[1].items[1].number, -250.0);

  for (const char *bad : {"", "[", "[1,]", "[1 2]", "[1]]", "[abc]", "[1.2.3]", "[1e999]"}) {
    JsonReader reader(bad);
    JsonValue ignored;
    EXPECT_FALSE(reader.parse(ignored)) << "accepted: " << bad;
    EXPECT_FALSE(reader.error().empty()) << bad;
  }
}

// ----------------------------------------------------------------------------
// LinearLRScheduler
// ----------------------------------------------------------------------------

// ORT-FACTS.md §2 (ORT's C# test TrainingTest.cs): warmup 2, total 4,
// lr 0.1; after each (OptimizerStep, SchedulerStep): .05 .1 .05 0.
TEST(LinearLRSchedulerTest, OrtExampleWarmup2Total4) {
  FakeTarget target;
  auto scheduler = LinearLRScheduler::create(target, 2, 4, 0.1f);
  ASSERT_TRUE(scheduler.isOk()) << scheduler.getStatus().message();
  const float expected[] = {0.05f, 0.1f, 0.05f, 0.0f};
  for (float lr : expected) {
    target.optimizerStep();
    ASSERT_TRUE((*scheduler)->step().isOk());
    EXPECT_FLOAT_EQ(target.getLearningRate(), lr) << "after step " << target.steps;
  }
  // Past the end the rate stays at 0.
  target.optimizerStep();
  ASSERT_TRUE((*scheduler)->step().isOk());
  EXPECT_EQ(target.getLearningRate(), 0.0f);
}

// ORT's LinearLRScheduler constructor calls Step(): the schedule applies at
// once, at the optimizer's current step count.
TEST(LinearLRSchedulerTest, CreateAppliesTheScheduleAtTheCurrentStep) {
  {
    FakeTarget target; // fresh optimizer, warm-up: factor(0) = 0
    auto scheduler = LinearLRScheduler::create(target, 2, 4, 0.1f);
    ASSERT_TRUE(scheduler.isOk());
    EXPECT_EQ(target.setCalls, 1);
    EXPECT_EQ(target.getLearningRate(), 0.0f);
  }
  {
    FakeTarget target; // no warm-up: factor(0) = 1
    auto scheduler = LinearLRScheduler::create(target, 0, 4, 0.1f);
    ASSERT_TRUE(scheduler.isOk());
    EXPECT_EQ(target.getLearningRate(), 0.1f);
  }
  {
    FakeTarget target; // restored at step 3 of 4 after 2 warm-up steps
    target.steps = 3;
    auto scheduler = LinearLRScheduler::create(target, 2, 4, 0.1f);
    ASSERT_TRUE(scheduler.isOk());
    EXPECT_FLOAT_EQ(target.getLearningRate(), 0.05f);
  }
}

TEST(LinearLRSchedulerTest, FactorMatchesOrtFloatArithmetic) {
  FakeTarget target;
  auto scheduler = LinearLRScheduler::create(target, 30, 100, 1e-3f);
  ASSERT_TRUE(scheduler.isOk());
  for (int64_t s = 0; s <= 120; ++s) {
    float factor = s < 30 ? static_cast<float>(s) / 30.0f
                          : std::max(0.0f, static_cast<float>(100 - s) / 70.0f);
    EXPECT_EQ((*scheduler)->learningRateAt(s), 1e-3f * factor) << "step " << s;
  }
}

TEST(LinearLRSchedulerTest, WarmupLongerThanTotalIsAllWarmup) {
  FakeTarget target;
  auto scheduler = LinearLRScheduler::create(target, 200, 100, 1e-3f);
  ASSERT_TRUE(scheduler.isOk()) << scheduler.getStatus().message();
  EXPECT_FLOAT_EQ((*scheduler)->learningRateAt(100), 0.5e-3f);
  EXPECT_FLOAT_EQ((*scheduler)->learningRateAt(199), 1e-3f * 199.0f / 200.0f);
  EXPECT_EQ((*scheduler)->learningRateAt(200), 0.0f); // total − s < 0
}

TEST(LinearLRSchedulerTest, ZeroWarmupAndZeroTotal) {
  FakeTarget target;
  auto scheduler = LinearLRScheduler::create(target, 0, 0, 0.5f);
  ASSERT_TRUE(scheduler.isOk()) << scheduler.getStatus().message();
  EXPECT_EQ((*scheduler)->learningRateAt(0), 0.0f);
  EXPECT_EQ((*scheduler)->learningRateAt(5), 0.0f);
}

TEST(LinearLRSchedulerTest, RejectsInvalidArguments) {
  FakeTarget target;
  struct Case {
    int64_t warmup, total;
    float lr;
    const char *message;
  };
  const Case cases[] = {
      {-1, 10, 0.1f, "warmupSteps must be >= 0, got -1"},
      {0, -5, 0.1f, "totalSteps must be >= 0, got -5"},
      {0, 10, -0.1f, "initialLearningRate must be finite and >= 0, got -0.1"},
      {0, 10, std::numeric_limits<float>::quiet_NaN(), "initialLearningRate must be finite"},
      {0, 10, std::numeric_limits<float>::infinity(), "initialLearningRate must be finite"},
  };
  for (const Case &c : cases) {
    auto scheduler = LinearLRScheduler::create(target, c.warmup, c.total, c.lr);
    ASSERT_FALSE(scheduler.isOk()) << c.message;
    EXPECT_THAT(scheduler.getStatus().message(), HasSubstr("LinearLRScheduler"));
    EXPECT_THAT(scheduler.getStatus().message(), HasSubstr(c.message));
  }
  EXPECT_EQ(target.setCalls, 0); // validation happens before touching the target
}

// ----------------------------------------------------------------------------
// Conformance with ORT's reference files and ORT's test procedure
// (training_api_tests.cc, TestLRSchduler): total 100 steps, initial lr 1e-3.
// The resume step is the first entry's step (0, or 51 for _restored); the
// optimizer state is set to it before the scheduler is constructed. Each
// iteration compares the current learning rate and step with the entry, then
// runs TrainStep, OptimizerStep and SchedulerStep.
// ----------------------------------------------------------------------------

struct ConformanceCase {
  const char *file;
  int64_t warmup;
};

void PrintTo(const ConformanceCase &c, std::ostream *os) {
  *os << c.file << " (warmup " << c.warmup << ")";
}

class LinearLRSchedulerConformanceTest : public ::testing::TestWithParam<ConformanceCase> {};

TEST_P(LinearLRSchedulerConformanceTest, MatchesOrtReference) {
  constexpr int64_t kTotalSteps = 100;
  constexpr float kInitialLearningRate = 1e-3f;
  constexpr double kRtol = 1e-4, kAtol = 1e-5; // ORT's

  const ConformanceCase &param = GetParam();
  std::string path =
      std::string(ODT_SHARED_DIR) + "/conformance/ort/test_data_generation/lr_scheduler/" +
      param.file;
  std::vector<ReferencePoint> reference;
  std::string error;
  ASSERT_TRUE(readReference(path, reference, error)) << error;
  ASSERT_FALSE(reference.empty());

  bool restored = std::string(param.file).find("_restored") != std::string::npos;
  int64_t resumeStep = reference.front().step;
  EXPECT_EQ(resumeStep, restored ? 51 : 0);
  EXPECT_EQ(reference.size(), restored ? 49u : 100u);
  ASSERT_EQ(kTotalSteps, static_cast<int64_t>(reference.size()) + resumeStep);

  FakeTarget target;
  target.steps = resumeStep; // the restored optimizer state
  auto scheduler =
      LinearLRScheduler::create(target, param.warmup, kTotalSteps, kInitialLearningRate);
  ASSERT_TRUE(scheduler.isOk()) << scheduler.getStatus().message();

  for (const ReferencePoint &point : reference) {
    ASSERT_EQ(point.learningRates.size(), 1u);
    double expected = point.learningRates[0];
    double actual = target.getLearningRate();
    ASSERT_NEAR(expected, actual, kAtol) << "step " << point.step;
    ASSERT_NEAR(expected, actual, kRtol * std::abs(expected)) << "step " << point.step;
    // Tighter than ORT asks: float rounding of the double reference.
    EXPECT_NEAR(expected, actual, 1e-6 * std::abs(expected)) << "step " << point.step;
    ASSERT_EQ(point.step, target.stepCount());

    target.optimizerStep();
    ASSERT_TRUE((*scheduler)->step().isOk());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ort, LinearLRSchedulerConformanceTest,
    ::testing::Values(ConformanceCase{"warmup_linear_scheduler_warmupstep-0.json", 0},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-0_restored.json", 0},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-30.json", 30},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-30_restored.json", 30},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-70.json", 70},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-70_restored.json", 70},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-200.json", 200},
                      ConformanceCase{"warmup_linear_scheduler_warmupstep-200_restored.json",
                                      200}),
    [](const ::testing::TestParamInfo<ConformanceCase> &info) {
      std::string name = info.param.file;
      name = name.substr(name.find("warmupstep-") + 11);
      name = name.substr(0, name.find(".json"));
      for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return "Warmup" + name;
    });

// ----------------------------------------------------------------------------
// CosineWithWarmupLRScheduler
// ----------------------------------------------------------------------------

/// Hugging Face's get_cosine_schedule_with_warmup factor, written out again.
double cosineReference(int64_t s, int64_t warmup, int64_t total, double cycles) {
  if (s < warmup)
    return double(s) / double(warmup < 1 ? 1 : warmup);
  double progress = double(s - warmup) / double(total - warmup < 1 ? 1 : total - warmup);
  double value = 0.5 * (1.0 + std::cos(std::acos(-1.0) * cycles * 2.0 * progress));
  return value > 0.0 ? value : 0.0;
}

TEST(CosineWithWarmupLRSchedulerTest, HandCheckedPoints) {
  FakeTarget target;
  auto scheduler = CosineWithWarmupLRScheduler::create(target, 10, 110, 1.0f);
  ASSERT_TRUE(scheduler.isOk()) << scheduler.getStatus().message();
  EXPECT_EQ(target.getLearningRate(), 0.0f); // applied at step 0
  const LRScheduler &s = **scheduler;
  EXPECT_EQ(s.learningRateAt(0), 0.0f);
  EXPECT_FLOAT_EQ(s.learningRateAt(5), 0.5f);
  EXPECT_FLOAT_EQ(s.learningRateAt(10), 1.0f);               // peak
  EXPECT_FLOAT_EQ(s.learningRateAt(35), 0.85355339f);        // ½(1 + cos π/4)
  EXPECT_NEAR(s.learningRateAt(60), 0.5f, 1e-7);             // ½(1 + cos π/2)
  EXPECT_FLOAT_EQ(s.learningRateAt(85), 0.14644661f);        // ½(1 + cos 3π/4)
  EXPECT_NEAR(s.learningRateAt(110), 0.0f, 1e-7);            // end of the schedule
}

TEST(CosineWithWarmupLRSchedulerTest, FollowsTheFormulaAndItsShape) {
  constexpr int64_t kWarmup = 7, kTotal = 50;
  constexpr float kLr = 3e-4f;
  FakeTarget target;
  auto scheduler = CosineWithWarmupLRScheduler::create(target, kWarmup, kTotal, kLr);
  ASSERT_TRUE(scheduler.isOk());
  float previous = -1.0f;
  for (int64_t s = 0; s <= kTotal; ++s) {
    ASSERT_TRUE((*scheduler)->step().isOk());
    float lr = target.getLearningRate();
    EXPECT_EQ(lr, static_cast<float>(double(kLr) * cosineReference(s, kWarmup, kTotal, 0.5)))
        << "step " << s;
    if (s <= kWarmup)
      EXPECT_GT(lr, previous) << "warm-up must rise, step " << s;
    else
      EXPECT_LT(lr, previous) << "decay must fall, step " << s;
    EXPECT_LE(lr, kLr);
    previous = lr;
    target.optimizerStep();
  }
  EXPECT_EQ((*scheduler)->learningRateAt(kWarmup), kLr);
  EXPECT_NEAR((*scheduler)->learningRateAt(kTotal), 0.0f, 1e-12);
}

TEST(CosineWithWarmupLRSchedulerTest, NumCyclesAndNoWarmup) {
  FakeTarget target;
  auto scheduler = CosineWithWarmupLRScheduler::create(target, 0, 100, 2.0f, 1.0);
  ASSERT_TRUE(scheduler.isOk());
  EXPECT_EQ(target.getLearningRate(), 2.0f); // no warm-up: full rate at step 0
  EXPECT_NEAR((*scheduler)->learningRateAt(50), 0.0f, 1e-6); // one full cycle: trough mid-way
  EXPECT_FLOAT_EQ((*scheduler)->learningRateAt(100), 2.0f);  // and back up at the end
  for (int64_t s = 0; s <= 100; ++s)
    EXPECT_EQ((*scheduler)->learningRateAt(s),
              static_cast<float>(2.0 * cosineReference(s, 0, 100, 1.0)))
        << "step " << s;
}

TEST(CosineWithWarmupLRSchedulerTest, RejectsInvalidArguments) {
  FakeTarget target;
  auto expectError = [&](Result<std::unique_ptr<CosineWithWarmupLRScheduler>> result,
                         const std::string &message) {
    ASSERT_FALSE(result.isOk()) << message;
    EXPECT_THAT(result.getStatus().message(), HasSubstr("CosineWithWarmupLRScheduler"));
    EXPECT_THAT(result.getStatus().message(), HasSubstr(message));
  };
  expectError(CosineWithWarmupLRScheduler::create(target, -1, 10, 0.1f),
              "warmupSteps must be >= 0");
  expectError(CosineWithWarmupLRScheduler::create(target, 0, -1, 0.1f),
              "totalSteps must be >= 0");
  expectError(CosineWithWarmupLRScheduler::create(target, 20, 10, 0.1f),
              "totalSteps (10) must be >= warmupSteps (20)");
  expectError(CosineWithWarmupLRScheduler::create(target, 0, 10, -1.0f),
              "initialLearningRate must be finite and >= 0");
  expectError(CosineWithWarmupLRScheduler::create(target, 0, 10, 0.1f, 0.0),
              "numCycles must be finite and > 0, got 0");
  expectError(CosineWithWarmupLRScheduler::create(target, 0, 10, 0.1f,
                                                  std::numeric_limits<double>::quiet_NaN()),
              "numCycles must be finite");
  EXPECT_EQ(target.setCalls, 0);
}

// ----------------------------------------------------------------------------
// ConstantWithWarmupLRScheduler
// ----------------------------------------------------------------------------

TEST(ConstantWithWarmupLRSchedulerTest, RampsThenHolds) {
  FakeTarget target;
  auto scheduler = ConstantWithWarmupLRScheduler::create(target, 4, 0.2f);
  ASSERT_TRUE(scheduler.isOk());
  const float expected[] = {0.0f, 0.05f, 0.1f, 0.15f, 0.2f, 0.2f, 0.2f};
  for (float lr : expected) {
    ASSERT_TRUE((*scheduler)->step().isOk());
    EXPECT_FLOAT_EQ(target.getLearningRate(), lr) << "step " << target.steps;
    target.optimizerStep();
  }
  for (int64_t s = 0; s < 1000; s += 37) {
    double factor = s < 4 ? double(s) / 4.0 : 1.0;
    EXPECT_EQ((*scheduler)->learningRateAt(s), static_cast<float>(double(0.2f) * factor));
  }
}

TEST(ConstantWithWarmupLRSchedulerTest, NoWarmupIsConstant) {
  FakeTarget target;
  auto scheduler = ConstantWithWarmupLRScheduler::create(target, 0, 0.2f);
  ASSERT_TRUE(scheduler.isOk());
  EXPECT_EQ(target.getLearningRate(), 0.2f);
  EXPECT_EQ((*scheduler)->learningRateAt(123456789), 0.2f);
}

TEST(ConstantWithWarmupLRSchedulerTest, RejectsInvalidArguments) {
  FakeTarget target;
  auto negative = ConstantWithWarmupLRScheduler::create(target, -3, 0.1f);
  ASSERT_FALSE(negative.isOk());
  EXPECT_THAT(negative.getStatus().message(),
              HasSubstr("ConstantWithWarmupLRScheduler: warmupSteps must be >= 0, got -3"));
  auto infinite =
      ConstantWithWarmupLRScheduler::create(target, 0, std::numeric_limits<float>::infinity());
  ASSERT_FALSE(infinite.isOk());
  EXPECT_THAT(infinite.getStatus().message(), HasSubstr("initialLearningRate must be finite"));
}

// ----------------------------------------------------------------------------
// Common behaviour: errors from the target, kinds, configs and restoring.
// ----------------------------------------------------------------------------

TEST(LRSchedulerTest, TargetErrorsPropagate) {
  FakeTarget target;
  target.refuse = true;
  auto refused = LinearLRScheduler::create(target, 0, 10, 0.1f);
  ASSERT_FALSE(refused.isOk());
  EXPECT_THAT(refused.getStatus().message(),
              HasSubstr("LinearLRScheduler: setting the first learning rate: "
                        "fake target refuses learning rates"));

  target.refuse = false;
  auto scheduler = ConstantWithWarmupLRScheduler::create(target, 0, 0.1f);
  ASSERT_TRUE(scheduler.isOk());
  target.refuse = true;
  Status status = (*scheduler)->step();
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("fake target refuses"));
}

TEST(LRSchedulerTest, NegativeStepCountIsAnError) {
  FakeTarget target;
  auto scheduler = LinearLRScheduler::create(target, 0, 10, 0.1f);
  ASSERT_TRUE(scheduler.isOk());
  target.steps = -1;
  float before = target.getLearningRate();
  Status status = (*scheduler)->step();
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("step count is negative (-1)"));
  EXPECT_EQ(target.getLearningRate(), before);
}

TEST(LRSchedulerTest, KindsAndConfigs) {
  FakeTarget target;
  auto linear = LinearLRScheduler::create(target, 3, 9, 0.25f);
  auto cosine = CosineWithWarmupLRScheduler::create(target, 2, 8, 0.5f, 1.5);
  auto constant = ConstantWithWarmupLRScheduler::create(target, 4, 0.75f);
  ASSERT_TRUE(linear.isOk() && cosine.isOk() && constant.isOk());

  EXPECT_EQ((*linear)->kind(), "linear");
  EXPECT_EQ((*cosine)->kind(), "cosine_with_warmup");
  EXPECT_EQ((*constant)->kind(), "constant_with_warmup");

  LRSchedulerConfig c = (*linear)->config();
  EXPECT_EQ(c.kind, "linear");
  EXPECT_EQ(c.warmupSteps, 3);
  EXPECT_EQ(c.totalSteps, 9);
  EXPECT_EQ(c.initialLearningRate, 0.25f);

  c = (*cosine)->config();
  EXPECT_EQ(c.kind, "cosine_with_warmup");
  EXPECT_EQ(c.warmupSteps, 2);
  EXPECT_EQ(c.totalSteps, 8);
  EXPECT_EQ(c.initialLearningRate, 0.5f);
  EXPECT_EQ(c.numCycles, 1.5);

  c = (*constant)->config();
  EXPECT_EQ(c.kind, "constant_with_warmup");
  EXPECT_EQ(c.warmupSteps, 4);
  EXPECT_EQ(c.initialLearningRate, 0.75f);
}

// A checkpoint keeps the config and the optimizer's step; a scheduler rebuilt
// from them continues the same schedule, its first value applied at once.
TEST(LRSchedulerTest, RebuiltFromConfigContinuesTheSchedule) {
  FakeTarget original;
  std::vector<std::unique_ptr<LRScheduler>> schedulers;
  schedulers.push_back(LinearLRScheduler::create(original, 30, 100, 1e-3f).take());
  schedulers.push_back(CosineWithWarmupLRScheduler::create(original, 10, 100, 1e-3f, 0.5).take());
  schedulers.push_back(ConstantWithWarmupLRScheduler::create(original, 10, 1e-3f).take());

  for (const auto &scheduler : schedulers) {
    ASSERT_TRUE(scheduler);
    FakeTarget resumed;
    resumed.steps = 51;
    auto rebuilt = createLRScheduler(resumed, scheduler->config());
    ASSERT_TRUE(rebuilt.isOk()) << rebuilt.getStatus().message();
    EXPECT_EQ((*rebuilt)->kind(), scheduler->kind());
    EXPECT_EQ(resumed.getLearningRate(), scheduler->learningRateAt(51));
    for (int64_t s = 0; s <= 120; ++s)
      EXPECT_EQ((*rebuilt)->learningRateAt(s), scheduler->learningRateAt(s))
          << scheduler->kind() << " step " << s;
  }
}

TEST(LRSchedulerTest, CreateFromConfigValidates) {
  FakeTarget target;
  LRSchedulerConfig config;
  config.kind = "step";
  auto unknown = createLRScheduler(target, config);
  ASSERT_FALSE(unknown.isOk());
  EXPECT_THAT(unknown.getStatus().message(),
              HasSubstr("unknown learning-rate scheduler kind 'step' (expected 'linear', "
                        "'cosine_with_warmup' or 'constant_with_warmup')"));

  config.kind = "cosine_with_warmup";
  config.warmupSteps = 5;
  config.totalSteps = 4;
  config.initialLearningRate = 0.1f;
  auto invalid = createLRScheduler(target, config);
  ASSERT_FALSE(invalid.isOk());
  EXPECT_THAT(invalid.getStatus().message(), HasSubstr("must be >= warmupSteps"));

  // Unused fields are ignored: a linear config with numCycles 0, a constant
  // one with totalSteps 0 below its warm-up.
  config.kind = "linear";
  config.numCycles = 0.0;
  EXPECT_TRUE(createLRScheduler(target, config).isOk());
  config.kind = "constant_with_warmup";
  config.totalSteps = 0;
  EXPECT_TRUE(createLRScheduler(target, config).isOk());
  EXPECT_EQ(target.setCalls, 2);
}

} // namespace
} // namespace odt
