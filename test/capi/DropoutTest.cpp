// Dropout in training mode through the C API, on models/dropout
// (make_dropout_model.py): y = Dropout(x * scale, ratio 0.3) with x and scale
// all ones, so the training step's output y is the mask scaled by 1 / 0.7.
// Masks must keep 70% of the elements, differ from step to step and between
// rows, be the same for a given seed whatever the thread count, follow
// OdtSetSeed, and resume from a saved checkpoint.

#include "CApiTestUtil.h"

namespace capi {
namespace {

constexpr int64_t kRows = 8, kWidth = 4096;
constexpr double kRatio = 0.3;

/// One step's mask: true where the element was kept.
using Mask = std::vector<bool>;

class DropoutTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(Ok(OdtSetSeed(0)));
    x = floats({kRows, kWidth}, std::vector<float>(kRows * kWidth, 1.0f));
    target = floats({kRows, kWidth}, std::vector<float>(kRows * kWidth, 0.0f));
  }

  Session newSession(OdtCheckpointState *state) {
    return createSession(state, modelDir("dropout"));
  }

  /// A TrainStep (no optimizer step: the scale stays ones) and its mask;
  /// every element must be 0 or 1 / (1 - ratio).
  Mask step(OdtTrainingSession *session) {
    const OdtValue *inputs[] = {x.get(), target.get()};
    OdtValue *outputs[2] = {nullptr, nullptr};
    EXPECT_TRUE(Ok(OdtTrainStep(session, 2, inputs, 2, outputs)));
    EXPECT_TRUE(Ok(OdtLazyResetGrad(session)));
    Mask mask;
    if (outputs[1]) {
      std::vector<float> y = elements<float>(outputs[1]);
      const float kept = static_cast<float>(1.0 / (1.0 - kRatio));
      for (float value : y) {
        EXPECT_TRUE(value == 0.0f || std::fabs(value - kept) < 1e-6f) << value;
        mask.push_back(value != 0.0f);
      }
    }
    for (OdtValue *value : outputs)
      OdtReleaseValue(value);
    return mask;
  }

  static double keptShare(const Mask &mask) {
    return double(std::count(mask.begin(), mask.end(), true)) / mask.size();
  }
  /// The share of positions where two masks (or two row ranges) differ.
  static double differingShare(const Mask &a, size_t aFirst, const Mask &b,
                               size_t bFirst, size_t count) {
    size_t differing = 0;
    for (size_t i = 0; i < count; ++i)
      differing += a[aFirst + i] != b[bFirst + i];
    return double(differing) / count;
  }

  Value x, target;
};

// Binomial tolerances: 6 standard deviations.
double tolerance(double p, size_t count) {
  return 6.0 * std::sqrt(p * (1 - p) / count);
}

TEST_F(DropoutTest, KeepsTheShareOfElementsTheRatioLeaves) {
  State state = loadState(artifact("dropout/checkpoint"));
  Session session = newSession(state.get());
  for (int i = 0; i < 4; ++i) {
    Mask mask = step(session.get());
    ASSERT_EQ(mask.size(), size_t(kRows * kWidth));
    EXPECT_NEAR(keptShare(mask), 1 - kRatio,
                tolerance(1 - kRatio, mask.size()));
  }
}

TEST_F(DropoutTest, MasksDifferBetweenStepsAndRows) {
  State state = loadState(artifact("dropout/checkpoint"));
  Session session = newSession(state.get());
  Mask first = step(session.get()), second = step(session.get());
  // Independent masks differ where exactly one keeps: 2 p (1 - p).
  double expected = 2 * kRatio * (1 - kRatio);
  size_t all = first.size();
  EXPECT_NEAR(differingShare(first, 0, second, 0, all), expected,
              tolerance(expected, all));
  for (int64_t row = 1; row < kRows; ++row)
    EXPECT_NEAR(differingShare(first, 0, first, row * kWidth, kWidth), expected,
                tolerance(expected, kWidth))
        << "row " << row << " repeats row 0's mask";
}

TEST_F(DropoutTest, ASeedGivesTheSameMasksWhateverTheThreadCount) {
  ASSERT_TRUE(Ok(OdtSetSeed(1234)));
  State stateA = loadState(artifact("dropout/checkpoint"));
  Session a = newSession(stateA.get());
  ASSERT_TRUE(Ok(OdtSetSessionThreads(a.get(), 1)));
  std::vector<Mask> masks;
  for (int i = 0; i < 3; ++i)
    masks.push_back(step(a.get()));
  State stateB = loadState(artifact("dropout/checkpoint"));
  Session b = newSession(stateB.get());
  ASSERT_TRUE(Ok(OdtSetSessionThreads(b.get(), 2)));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(step(b.get()), masks[i]) << "step " << i + 1;

  // Another seed, other masks; the same seed again, the same masks (the
  // sessions restart their step count at OdtSetSeed).
  ASSERT_TRUE(Ok(OdtSetSeed(1235)));
  Mask other = step(a.get());
  EXPECT_NEAR(differingShare(other, 0, masks[0], 0, other.size()),
              2 * kRatio * (1 - kRatio),
              tolerance(2 * kRatio * (1 - kRatio), other.size()));
  ASSERT_TRUE(Ok(OdtSetSeed(1234)));
  EXPECT_EQ(step(a.get()), masks[0]);
  EXPECT_EQ(step(b.get()), masks[0]);
  EXPECT_EQ(step(b.get()), masks[1]);
}

TEST_F(DropoutTest, ARefusedStepDrawsNothing) {
  State stateA = loadState(artifact("dropout/checkpoint"));
  Session a = newSession(stateA.get());
  Mask first = step(a.get());
  State stateB = loadState(artifact("dropout/checkpoint"));
  Session b = newSession(stateB.get());
  // x of another width: refused before the step runs.
  Value narrow = floats({kRows, 3}, std::vector<float>(kRows * 3, 1.0f));
  const OdtValue *inputs[] = {narrow.get(), target.get()};
  OdtValue *outputs[2] = {nullptr, nullptr};
  EXPECT_TRUE(Fails(OdtTrainStep(b.get(), 2, inputs, 2, outputs), {"x"}));
  EXPECT_EQ(step(b.get()), first);
}

TEST_F(DropoutTest, ASavedCheckpointResumesTheSequence) {
  ASSERT_TRUE(Ok(OdtSetSeed(99)));
  State state = loadState(artifact("dropout/checkpoint"));
  Session session = newSession(state.get());
  step(session.get());
  step(session.get());
  std::string path = freshDir() + "/after-two-steps.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), path.c_str(), false)));
  Mask third = step(session.get());

  State resumed = loadState(path);
  Session again = newSession(resumed.get());
  EXPECT_EQ(step(again.get()), third);
}

} // namespace
} // namespace capi
