// TrainingApiTest through the C API (ORT's TrainingApiTest, docs/ORT-FACTS.md
// §7): parameter size, copying a buffer to the parameters, gradient
// accumulation and lazy reset, an optimizer over a checkpoint's optimizer
// state, the linear learning-rate scheduler (registration, SchedulerStep,
// values, resume), export for inferencing and nominal states.

#include "CApiTestUtil.h"

namespace capi {
namespace {

size_t parametersSize(OdtTrainingSession *session, bool trainableOnly) {
  size_t size = 0;
  EXPECT_TRUE(Ok(OdtGetParametersSize(session, &size, trainableOnly)));
  return size;
}

std::vector<float> toBuffer(OdtTrainingSession *session, bool trainableOnly) {
  int64_t size = static_cast<int64_t>(parametersSize(session, trainableOnly));
  Value buffer = floats({size}, std::vector<float>(size, NAN));
  EXPECT_TRUE(Ok(OdtCopyParametersToBuffer(session, buffer.get(), trainableOnly)));
  return elements<float>(buffer.get());
}

float learningRate(OdtTrainingSession *session) {
  float lr = NAN;
  EXPECT_TRUE(Ok(OdtGetLearningRate(session, &lr)));
  return lr;
}

// ORT: TrainingApiTest.ModuleParametersSize.
TEST(TrainingApiTest, ParametersSize) {
  State ort = loadState(ortData("checkpoint.ckpt"));
  Session ortSession = createSession(ort.get(), modelDir("ort_mlp"));
  ASSERT_TRUE(ortSession);
  // 784*500 + 500 + 500*10 + 10
  EXPECT_EQ(parametersSize(ortSession.get(), true), 397510u);
  EXPECT_EQ(parametersSize(ortSession.get(), false), 397510u);

  State def = loadState(defaultData() + "/checkpoint");
  Session defSession = createSession(def.get(), defaultModel());
  EXPECT_EQ(parametersSize(defSession.get(), true), 676u); // 512+32+128+4

  // fc1 frozen: only fc2 is trainable.
  State frozen = loadState(artifact("frozen/checkpoint"));
  Session frozenSession = createSession(frozen.get(), modelDir("frozen"));
  ASSERT_TRUE(frozenSession);
  EXPECT_EQ(parametersSize(frozenSession.get(), true), 132u);
  EXPECT_EQ(parametersSize(frozenSession.get(), false), 676u);
}

// ORT: TrainingApiTest.ModuleCopyBufferToParameters — the buffer is the
// parameters in training-graph order; the session trains with the new values.
TEST(TrainingApiTest, CopyBufferToParameters) {
  State state = loadState(ortData("checkpoint.ckpt"));
  Session session = createSession(state.get(), modelDir("ort_mlp"));
  ASSERT_TRUE(session);
  Inputs inputs = ortInputs();
  float before = trainStep(session.get(), inputs);

  size_t size = parametersSize(session.get(), true);
  std::vector<float> values(size);
  for (size_t i = 0; i < size; ++i)
    values[i] = 0.01f * std::sin(0.37f * static_cast<float>(i));
  Value buffer = floats({static_cast<int64_t>(size)}, values);
  ASSERT_TRUE(Ok(OdtCopyBufferToParameters(session.get(), buffer.get(), true)));

  // The state sees the values, in training-graph input order.
  EXPECT_TRUE(sameBits(parameters(state.get(), kMlpParameters), values));
  EXPECT_TRUE(sameBits(toBuffer(session.get(), true), values));

  // The session trains with them: the same loss as a state given the same
  // values parameter by parameter.
  ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
  float after = trainStep(session.get(), inputs);
  EXPECT_NE(after, before);
  State other = loadState(ortData("checkpoint.ckpt"));
  size_t offset = 0;
  for (const std::string &name : kMlpParameters) {
    OdtValue *current = nullptr;
    ASSERT_TRUE(Ok(OdtGetParameter(other.get(), name.c_str(), &current)));
    Value owned(current);
    std::vector<int64_t> shape = shapeOf(current);
    size_t count = elements<float>(current).size();
    Value replacement = floats(
        shape, std::vector<float>(values.begin() + offset,
                                  values.begin() + offset + count));
    offset += count;
    ASSERT_TRUE(Ok(OdtUpdateParameter(other.get(), name.c_str(), replacement.get())));
  }
  Session otherSession = createSession(other.get(), modelDir("ort_mlp"));
  EXPECT_EQ(trainStep(otherSession.get(), inputs), after);
}

// ORT: TrainingApiTest.ModuleTrainStep and the accumulation test. With an
// SGD optimizer (w -= lr * g) the accumulated gradient shows in the
// parameters: N TrainSteps give N times the gradient, LazyResetGrad makes the
// next TrainStep overwrite it, OptimizerStep does not reset it.
TEST(TrainingApiTest, TrainStepAccumulationAndLazyReset) {
  Inputs inputs = defaultInputs();
  const float lr = 1.0f;
  auto run = [&](const char *recipe) {
    State state = loadState(artifact("sgd/checkpoint"));
    Session session = createSession(state.get(), modelDir("sgd"));
    EXPECT_TRUE(Ok(OdtSetLearningRate(session.get(), lr)));
    for (const char *op = recipe; *op; ++op) {
      if (*op == 'T')
        trainStep(session.get(), inputs);
      else if (*op == 'O')
        EXPECT_TRUE(Ok(OdtOptimizerStep(session.get())));
      else if (*op == 'R')
        EXPECT_TRUE(Ok(OdtLazyResetGrad(session.get())));
    }
    return parameters(state.get(), kMlpParameters);
  };
  State initial = loadState(artifact("sgd/checkpoint"));
  std::vector<float> w0 = parameters(initial.get(), kMlpParameters);
  std::vector<float> once = run("TO");      // w0 - g
  std::vector<float> thrice = run("TTTO");  // w0 - 3g
  std::vector<float> reset = run("TTTRTO"); // w0 - g
  std::vector<float> twice = run("TOO");    // w0 - 2g: the step keeps g
  ASSERT_EQ(once.size(), w0.size());

  double largest = 0;
  size_t off = 0;
  for (size_t i = 0; i < w0.size(); ++i) {
    double g = double(w0[i]) - once[i];
    largest = std::max(largest, std::fabs(g));
    double tolerance = 1e-6 + 1e-4 * std::fabs(g);
    if (std::fabs((double(w0[i]) - thrice[i]) - 3 * g) > tolerance ||
        std::fabs((double(w0[i]) - twice[i]) - 2 * g) > tolerance)
      ++off;
  }
  EXPECT_GT(largest, 1e-3) << "the gradient is too small to show anything";
  EXPECT_EQ(off, 0u) << "elements whose update is not 3x (TTTO) or 2x (TOO) "
                        "the single-step update";
  EXPECT_TRUE(sameBits(reset, once))
      << "LazyResetGrad: the next TrainStep must overwrite the gradients";

  // The same with ORT's MLP and AdamW: TTTRTO updates exactly like TO.
  auto runOrt = [&](const char *recipe) {
    State state = loadState(ortData("checkpoint.ckpt"));
    Session session = createSession(state.get(), modelDir("ort_mlp"));
    Inputs ort = ortInputs();
    for (const char *op = recipe; *op; ++op) {
      if (*op == 'T')
        trainStep(session.get(), ort);
      else if (*op == 'O')
        EXPECT_TRUE(Ok(OdtOptimizerStep(session.get())));
      else
        EXPECT_TRUE(Ok(OdtLazyResetGrad(session.get())));
    }
    return toBuffer(session.get(), true);
  };
  EXPECT_TRUE(sameBits(runOrt("TTTRTO"), runOrt("TO")));
  EXPECT_FALSE(sameBits(runOrt("TTTO"), runOrt("TO")));
}

// ORT: TrainingApiTest.OptimizerCreatedWithOptimizerCheckpointState — a
// session over a checkpoint holding optimizer state (moments, step) updates
// exactly like the session that wrote it.
TEST(TrainingApiTest, OptimizerFromCheckpointState) {
  std::string dir = freshDir();
  Inputs inputs = ortInputs();
  State state = loadState(ortData("checkpoint.ckpt"));
  Session session = createSession(state.get(), modelDir("ort_mlp"));
  train(session.get(), inputs, 2);
  std::string path = dir + "/optimizer.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), path.c_str(), true)));

  State loaded = loadState(path);
  Session resumed = createSession(loaded.get(), modelDir("ort_mlp"));
  ASSERT_TRUE(resumed);
  for (int step = 0; step < 3; ++step) {
    EXPECT_EQ(trainStep(resumed.get(), inputs), trainStep(session.get(), inputs));
    ASSERT_TRUE(Ok(OdtOptimizerStep(resumed.get())));
    ASSERT_TRUE(Ok(OdtOptimizerStep(session.get())));
    ASSERT_TRUE(Ok(OdtLazyResetGrad(resumed.get())));
    ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
    EXPECT_TRUE(sameBits(toBuffer(resumed.get(), true), toBuffer(session.get(), true)))
        << "after optimizer step " << step + 3;
  }
}

// ORT: TrainingApiTest.LinearLRScheduler_* — here: that the scheduler is wired
// (the formula is tested in test/runtime). Warm-up 2, total 4, lr 0.1: the
// learning rate is 0.1 until the first SchedulerStep, then .05 .1 .05 0; a
// session resumed from a checkpoint continues the schedule.
TEST(TrainingApiTest, LinearLRScheduler) {
  std::string dir = freshDir();
  Inputs inputs = defaultInputs();
  State state = loadState(defaultData() + "/checkpoint");
  Session session = createSession(state.get(), defaultModel());
  ASSERT_TRUE(session);
  EXPECT_EQ(learningRate(session.get()), 0.001f) << "ORT's default";
  EXPECT_TRUE(Fails(OdtSchedulerStep(session.get()), {"scheduler"}))
      << "SchedulerStep without a scheduler";

  ASSERT_TRUE(Ok(OdtRegisterLinearLRScheduler(session.get(), 2, 4, 0.1f)));
  EXPECT_EQ(learningRate(session.get()), 0.1f);
  const float expected[] = {0.05f, 0.1f, 0.05f, 0.0f};
  std::string resumePath = dir + "/step2.ckpt";
  for (int step = 0; step < 4; ++step) {
    trainStep(session.get(), inputs);
    ASSERT_TRUE(Ok(OdtOptimizerStep(session.get())));
    ASSERT_TRUE(Ok(OdtSchedulerStep(session.get())));
    ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
    EXPECT_FLOAT_EQ(learningRate(session.get()), expected[step])
        << "after step " << step + 1;
    if (step == 1)
      ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), resumePath.c_str(), true)));
  }
  // Past the end it stays 0.
  ASSERT_TRUE(Ok(OdtOptimizerStep(session.get())));
  ASSERT_TRUE(Ok(OdtSchedulerStep(session.get())));
  EXPECT_EQ(learningRate(session.get()), 0.0f);

  // Resumed after step 2: lr 0.1, then .05 and 0 without registering again.
  State loaded = loadState(resumePath);
  Session resumed = createSession(loaded.get(), defaultModel());
  ASSERT_TRUE(resumed);
  EXPECT_FLOAT_EQ(learningRate(resumed.get()), 0.1f);
  for (int step = 2; step < 4; ++step) {
    trainStep(resumed.get(), inputs);
    ASSERT_TRUE(Ok(OdtOptimizerStep(resumed.get())));
    ASSERT_TRUE(Ok(OdtSchedulerStep(resumed.get())));
    ASSERT_TRUE(Ok(OdtLazyResetGrad(resumed.get())));
    EXPECT_FLOAT_EQ(learningRate(resumed.get()), expected[step])
        << "resumed, after step " << step + 1;
  }
  // Same parameters as the uninterrupted run after its 4th step? The original
  // ran a 5th optimizer step at lr 0, which AdamW with weight_decay 0 turns
  // into no change, so they match.
  EXPECT_TRUE(sameBits(parameters(loaded.get(), kMlpParameters),
                       parameters(state.get(), kMlpParameters)));
}

// odt's additions: cosine and constant schedules, same wiring.
TEST(TrainingApiTest, CosineAndConstantLRSchedulers) {
  Inputs inputs = defaultInputs();
  struct Case {
    const char *name;
    std::vector<float> expected;
  } cases[] = {{"cosine", {0.05f, 0.1f, 0.05f, 0.0f}},
               {"constant", {0.05f, 0.1f, 0.1f, 0.1f}}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    State state = loadState(defaultData() + "/checkpoint");
    Session session = createSession(state.get(), defaultModel());
    if (std::string(c.name) == "cosine")
      ASSERT_TRUE(Ok(OdtRegisterCosineLRScheduler(session.get(), 2, 4, 0.1f, 0.5)));
    else
      ASSERT_TRUE(Ok(OdtRegisterConstantLRScheduler(session.get(), 2, 0.1f)));
    EXPECT_EQ(learningRate(session.get()), 0.1f);
    for (size_t step = 0; step < c.expected.size(); ++step) {
      trainStep(session.get(), inputs);
      ASSERT_TRUE(Ok(OdtOptimizerStep(session.get())));
      ASSERT_TRUE(Ok(OdtSchedulerStep(session.get())));
      ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
      EXPECT_NEAR(learningRate(session.get()), c.expected[step], 1e-7)
          << "after step " << step + 1;
    }
  }
}

// ORT: TrainingApiTest.ModuleExportModelForInferencing — writes an ONNX file
// (its contents are checked with onnx and NumPy by check_examples.py).
TEST(TrainingApiTest, ExportModelForInferencing) {
  std::string dir = freshDir();
  State state = loadState(defaultData() + "/checkpoint");
  Session session = createSession(state.get(), defaultModel());
  train(session.get(), defaultInputs(), 2);
  std::string path = dir + "/inference.onnx";
  const char *outputs[] = {"logits"};
  ASSERT_TRUE(Ok(OdtExportModelForInferencing(session.get(), path.c_str(), 1, outputs)));
  std::vector<uint8_t> bytes = readFile(path);
  // ONNX protobuf holding the output name and the parameters as initializers
  // (at least their 676 floats).
  EXPECT_GT(bytes.size(), 676u * 4u);
  std::string text(bytes.begin(), bytes.end());
  for (const char *name : {"logits", "fc1.weight", "fc2.bias"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
  std::vector<float> fc2bias = parameter(state.get(), "fc2.bias");
  EXPECT_NE(std::search(bytes.begin(), bytes.end(),
                        reinterpret_cast<const uint8_t *>(fc2bias.data()),
                        reinterpret_cast<const uint8_t *>(fc2bias.data() + 4)),
            bytes.end())
      << "the trained fc2.bias values are not in the file";
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"inference.onnx"});

  // An output the eval graph does not have: an error naming it, no file.
  std::string bad = dir + "/bad.onnx";
  const char *unknown[] = {"no_such_output"};
  EXPECT_TRUE(Fails(OdtExportModelForInferencing(session.get(), bad.c_str(), 1, unknown),
                    {"no_such_output"}));
  EXPECT_FALSE(exists(bad));
  // Into a missing folder: an error, nothing created.
  std::string missing = dir + "/missing/inference.onnx";
  EXPECT_TRUE(Fails(OdtExportModelForInferencing(session.get(), missing.c_str(), 1, outputs),
                    {"missing"}));
  EXPECT_FALSE(exists(dir + "/missing"));
}

// ORT: TrainingApiTest.ModuleFromNominalState — a session over a nominal
// state refuses to run until CopyBufferToParameters(trainable_only = false)
// gives every parameter its values; then it trains like the complete one.
TEST(TrainingApiTest, NominalState) {
  Inputs inputs = defaultInputs();
  State complete = loadState(defaultData() + "/checkpoint");
  Session completeSession = createSession(complete.get(), defaultModel());
  std::vector<float> all = toBuffer(completeSession.get(), false);

  State nominal = loadState(defaultData() + "/nominal_checkpoint");
  Session session = createSession(nominal.get(), defaultModel());
  ASSERT_TRUE(session) << "a session may be created over a nominal state";
  EXPECT_EQ(parametersSize(session.get(), false), all.size());
  std::vector<OdtValue *> outputs(1, nullptr);
  EXPECT_TRUE(Fails(OdtTrainStep(session.get(), inputs.size(), inputs.data(), 1,
                                 outputs.data()),
                    {"nominal", "CopyBufferToParameters"}));
  EXPECT_EQ(outputs[0], nullptr);
  EXPECT_TRUE(Fails(OdtEvalStep(session.get(), inputs.size(), inputs.data(), 1,
                                outputs.data()),
                    {"nominal"}));

  Value buffer = floats({static_cast<int64_t>(all.size())}, all);
  ASSERT_TRUE(Ok(OdtCopyBufferToParameters(session.get(), buffer.get(), false)));
  EXPECT_TRUE(sameBits(train(session.get(), inputs, 3),
                       train(completeSession.get(), inputs, 3)));
  EXPECT_TRUE(sameBits(parameters(nominal.get(), kMlpParameters),
                       parameters(complete.get(), kMlpParameters)));

  // With frozen parameters, the trainable ones alone do not complete it.
  State frozenComplete = loadState(artifact("frozen/checkpoint"));
  Session frozenCompleteSession = createSession(frozenComplete.get(), modelDir("frozen"));
  State frozenNominal = loadState(artifact("frozen/nominal_checkpoint"));
  Session frozenSession = createSession(frozenNominal.get(), modelDir("frozen"));
  ASSERT_TRUE(frozenSession);
  std::vector<float> trainable = toBuffer(frozenCompleteSession.get(), true);
  ASSERT_EQ(trainable.size(), 132u);
  Value part = floats({132}, trainable);
  ASSERT_TRUE(Ok(OdtCopyBufferToParameters(frozenSession.get(), part.get(), true)));
  EXPECT_TRUE(Fails(OdtTrainStep(frozenSession.get(), inputs.size(), inputs.data(), 1,
                                 outputs.data()),
                    {"nominal"}));
  std::vector<float> everything = toBuffer(frozenCompleteSession.get(), false);
  Value whole = floats({static_cast<int64_t>(everything.size())}, everything);
  ASSERT_TRUE(Ok(OdtCopyBufferToParameters(frozenSession.get(), whole.get(), false)));
  EXPECT_TRUE(sameBits(train(frozenSession.get(), inputs, 3),
                       train(frozenCompleteSession.get(), inputs, 3)));
}

// Frozen parameters: not trained, skipped by trainable-only buffers.
TEST(TrainingApiTest, FrozenParametersStayPut) {
  State state = loadState(artifact("frozen/checkpoint"));
  Session session = createSession(state.get(), modelDir("frozen"));
  ASSERT_TRUE(session);
  std::vector<float> fc1 = parameter(state.get(), "fc1.weight");
  std::vector<float> fc2 = parameter(state.get(), "fc2.weight");
  std::vector<float> losses = train(session.get(), defaultInputs(), 5);
  EXPECT_LT(losses.back(), losses.front());
  EXPECT_TRUE(sameBits(parameter(state.get(), "fc1.weight"), fc1));
  EXPECT_FALSE(sameBits(parameter(state.get(), "fc2.weight"), fc2));
  // Trainable-only buffer = fc2.weight, fc2.bias.
  std::vector<float> buffer = toBuffer(session.get(), true);
  std::vector<float> expected = parameter(state.get(), "fc2.weight");
  std::vector<float> bias = parameter(state.get(), "fc2.bias");
  expected.insert(expected.end(), bias.begin(), bias.end());
  EXPECT_TRUE(sameBits(buffer, expected));
}

} // namespace
} // namespace capi
