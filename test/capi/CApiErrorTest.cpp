// Bad input through the C API: every mistake is an error status with a
// message that says what is wrong (checked for its words), never a crash,
// and never loses data (parameters, buffers and files stay as they were).

#include "CApiTestUtil.h"

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <thread>

namespace capi {
namespace {

class CApiErrorTest : public ::testing::Test {
protected:
  void SetUp() override {
    state = loadState(defaultData() + "/checkpoint");
    ASSERT_TRUE(state);
    session = createSession(state.get(), defaultModel());
    ASSERT_TRUE(session);
    inputs = defaultInputs();
    before = parameters(state.get(), kMlpParameters);
  }
  /// The parameters are unchanged.
  void expectParametersKept() {
    EXPECT_TRUE(sameBits(parameters(state.get(), kMlpParameters), before))
        << "a failed call changed the parameters";
  }

  State state;
  Session session;
  Inputs inputs;
  std::vector<float> before;
};

TEST_F(CApiErrorTest, CopyBufferToParametersWrongLength) {
  for (int64_t length : {0, 1, 675, 677, 10000}) {
    SCOPED_TRACE(length);
    Value buffer = floats({length}, std::vector<float>(length, 42.0f));
    EXPECT_TRUE(Fails(OdtCopyBufferToParameters(session.get(), buffer.get(), true),
                      {"CopyBufferToParameters", std::to_string(length), "676"}));
    EXPECT_TRUE(Fails(OdtCopyBufferToParameters(session.get(), buffer.get(), false),
                      {std::to_string(length), "676"}));
    expectParametersKept();
  }
  // A 2-d buffer of the right element count is fine (flat and contiguous).
  Value square = floats({26, 26}, before);
  EXPECT_TRUE(Ok(OdtCopyBufferToParameters(session.get(), square.get(), true)));
  // Another dtype.
  Value ints = tensor<int32_t>(ODT_INT32, {676}, std::vector<int32_t>(676, 1));
  EXPECT_TRUE(Fails(OdtCopyBufferToParameters(session.get(), ints.get(), true),
                    {"int32", "float32"}));
  expectParametersKept();
}

TEST_F(CApiErrorTest, CopyParametersToBufferWrongLength) {
  for (int64_t length : {0, 675, 677}) {
    SCOPED_TRACE(length);
    std::vector<float> sentinel(length, -3.0f);
    Value buffer = floats({length}, sentinel);
    EXPECT_TRUE(Fails(OdtCopyParametersToBuffer(session.get(), buffer.get(), true),
                      {"CopyParametersToBuffer", std::to_string(length), "676"}));
    EXPECT_TRUE(sameBits(elements<float>(buffer.get()), sentinel))
        << "a refused buffer was written";
  }
  Value ints = tensor<int64_t>(ODT_INT64, {676}, std::vector<int64_t>(676, 5));
  EXPECT_TRUE(Fails(OdtCopyParametersToBuffer(session.get(), ints.get(), true),
                    {"int64", "float32"}));
  EXPECT_EQ(elements<int64_t>(ints.get()), std::vector<int64_t>(676, 5));
}

TEST_F(CApiErrorTest, UnknownParameterName) {
  OdtValue *value = reinterpret_cast<OdtValue *>(1);
  EXPECT_TRUE(Fails(OdtGetParameter(state.get(), "fc3.weight", &value),
                    {"no parameter", "'fc3.weight'"}));
  EXPECT_EQ(value, nullptr);
  Value update = floats({4}, {1, 2, 3, 4});
  EXPECT_TRUE(Fails(OdtUpdateParameter(state.get(), "fc3.weight", update.get()),
                    {"no parameter", "'fc3.weight'"}));
  OdtDataType type;
  size_t rank;
  const int64_t *dims;
  EXPECT_TRUE(Fails(OdtGetParameterTypeAndShape(state.get(), "", &type, &rank, &dims),
                    {"no parameter"}));
  // Names are exact (no prefix or case folding).
  EXPECT_TRUE(Fails(OdtGetParameter(state.get(), "FC2.BIAS", &value), {"FC2.BIAS"}));
  EXPECT_TRUE(Fails(OdtGetParameter(state.get(), "fc2.bias ", &value), {"no parameter"}));
  expectParametersKept();
}

TEST_F(CApiErrorTest, UnknownPropertyName) {
  OdtPropertyType type;
  const void *value = nullptr;
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), "no_such_property", &type, &value),
                    {"no property", "'no_such_property'"}));
}

TEST_F(CApiErrorTest, ReservedPropertyName) {
  // The session recorded the learning rate as odt.learning_rate.
  ASSERT_TRUE(Ok(OdtSetLearningRate(session.get(), 0.02f)));
  float lr = 5.0f;
  EXPECT_TRUE(Fails(OdtAddProperty(state.get(), "odt.learning_rate", ODT_FLOAT_PROPERTY, &lr),
                    {"reserved", "odt.", "odt.learning_rate"}));
  EXPECT_TRUE(Fails(OdtAddProperty(state.get(), "odt.mine", ODT_STRING_PROPERTY, "x"),
                    {"reserved"}));
  float now = 0;
  ASSERT_TRUE(Ok(OdtGetLearningRate(session.get(), &now)));
  EXPECT_EQ(now, 0.02f);
  OdtPropertyType type;
  const void *value = nullptr;
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), "odt.mine", &type, &value), {"no property"}));
  // Empty name, unknown type.
  int64_t one = 1;
  EXPECT_TRUE(Fails(OdtAddProperty(state.get(), "", ODT_INT_PROPERTY, &one), {"empty"}));
  EXPECT_TRUE(Fails(OdtAddProperty(state.get(), "p", static_cast<OdtPropertyType>(7), &one),
                    {"property type", "7"}));
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), "p", &type, &value), {"no property"}));
}

TEST_F(CApiErrorTest, UpdateParameterWrongDtypeOrShape) {
  Value ints = tensor<int64_t>(ODT_INT64, {4}, {1, 2, 3, 4});
  EXPECT_TRUE(Fails(OdtUpdateParameter(state.get(), "fc2.bias", ints.get()),
                    {"fc2.bias", "float32", "int64"}));
  Value longer = floats({5}, {1, 2, 3, 4, 5});
  EXPECT_TRUE(Fails(OdtUpdateParameter(state.get(), "fc2.bias", longer.get()),
                    {"fc2.bias", "shape", "[4]", "[5]"}));
  Value reshaped = floats({2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(Fails(OdtUpdateParameter(state.get(), "fc2.bias", reshaped.get()),
                    {"shape", "[2, 2]"}));
  expectParametersKept();
}

// On a model compiled without an optimizer (models/noopt), so that the
// session can be created over the nominal state (see the next test).
TEST_F(CApiErrorTest, TrainStepOnUncompletedNominalState) {
  State nominal = loadState(defaultData() + "/nominal_checkpoint");
  Session s = createSession(nominal.get(), modelDir("noopt"));
  ASSERT_TRUE(s);
  std::vector<OdtValue *> outputs(1, nullptr);
  EXPECT_TRUE(Fails(OdtTrainStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"TrainStep", "nominal", "CopyBufferToParameters"}));
  EXPECT_EQ(outputs[0], nullptr);
  // Values for some parameters only: still nominal.
  Value bias = floats({4}, {0, 0, 0, 0});
  ASSERT_TRUE(Ok(OdtUpdateParameter(nominal.get(), "fc2.bias", bias.get())));
  EXPECT_TRUE(Fails(OdtTrainStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"nominal"}));
  EXPECT_TRUE(Fails(OdtEvalStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"EvalStep", "nominal"}));
  EXPECT_EQ(outputs[0], nullptr);
  size_t size = 0;
  ASSERT_TRUE(Ok(OdtGetParametersSize(s.get(), &size, true)));
  Value buffer = floats({int64_t(size)}, std::vector<float>(size, 0));
  EXPECT_TRUE(Fails(OdtCopyParametersToBuffer(s.get(), buffer.get(), true), {"nominal"}));
  // This model has no optimizer step at all.
  EXPECT_TRUE(Fails(OdtOptimizerStep(s.get()), {"no optimizer"}));
  float lr = 0;
  EXPECT_TRUE(Fails(OdtGetLearningRate(s.get(), &lr), {"no optimizer"}));
  EXPECT_TRUE(Fails(OdtRegisterLinearLRScheduler(s.get(), 1, 2, 0.1f), {"no optimizer"}));
}

// With an optimizer: the session over a nominal state must exist (ORT
// creates it and completes the state later) and refuse OptimizerStep until
// the state is complete.
TEST_F(CApiErrorTest, OptimizerStepOnUncompletedNominalState) {
  State nominal = loadState(defaultData() + "/nominal_checkpoint");
  Session s = createSession(nominal.get(), defaultModel());
  ASSERT_TRUE(s);
  std::vector<OdtValue *> outputs(1, nullptr);
  EXPECT_TRUE(Fails(OdtTrainStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"nominal"}));
  EXPECT_TRUE(Fails(OdtOptimizerStep(s.get()), {"OptimizerStep", "nominal"}));
}

// An optimizer step before any TrainStep would apply no gradients but count
// a step (ORT does so silently): refused, and the parameters are unchanged.
TEST_F(CApiErrorTest, OptimizerStepBeforeAnyTrainStep) {
  State state = loadState(defaultData() + "/checkpoint");
  Session s = createSession(state.get(), defaultModel());
  ASSERT_TRUE(s);
  std::vector<float> before = parameter(state.get(), "fc2.bias");
  EXPECT_TRUE(Fails(OdtOptimizerStep(s.get()), {"OptimizerStep", "no TrainStep"}));
  EXPECT_EQ(parameter(state.get(), "fc2.bias"), before);
  trainStep(s.get(), defaultInputs());
  EXPECT_TRUE(Ok(OdtOptimizerStep(s.get())));
  EXPECT_NE(parameter(state.get(), "fc2.bias"), before);
}

// A nominal parameter takes the first values it is given, whatever their
// shape (the nominal state does not know it, odt.h says so); the session,
// which does, refuses to run with a wrong one, naming it.
TEST_F(CApiErrorTest, UpdateNominalParameterWithTheWrongShape) {
  State nominal = loadState(defaultData() + "/nominal_checkpoint");
  Session s = createSession(nominal.get(), modelDir("noopt"));
  ASSERT_TRUE(s);
  struct Update {
    const char *name;
    std::vector<int64_t> shape;
  } updates[] = {{"fc1.weight", {16, 32}}, {"fc1.bias", {32}}, {"fc2.weight", {4, 32}},
                 {"fc2.bias", {4}}};
  for (const Update &u : updates) {
    OdtValue *raw = nullptr;
    ASSERT_TRUE(Ok(OdtCreateTensor(ODT_FLOAT, u.shape.data(), u.shape.size(), &raw)));
    Value value(raw);
    ASSERT_TRUE(Ok(OdtUpdateParameter(nominal.get(), u.name, raw)));
  }
  std::vector<OdtValue *> outputs(1, nullptr);
  EXPECT_TRUE(Fails(OdtTrainStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"fc1.weight", "[16, 32]", "[32, 16]"}));
  EXPECT_TRUE(Fails(OdtEvalStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"fc1.weight", "[32, 16]"}));
  EXPECT_EQ(outputs[0], nullptr);
}

TEST_F(CApiErrorTest, BadThreadCounts) {
  EXPECT_TRUE(Fails(OdtSetSessionThreads(session.get(), -1), {"threads", "0"}));
  EXPECT_TRUE(Fails(OdtSetSessionThreads(nullptr, 2), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetSessionThreads(session.get(), nullptr), {"NULL"}));
  int threads = -1;
  ASSERT_TRUE(Ok(OdtGetSessionThreads(session.get(), &threads)));
  EXPECT_EQ(threads, 0); // unchanged by the failed calls
}

TEST_F(CApiErrorTest, FlushDenormalsNeedsASession) {
  EXPECT_TRUE(Fails(OdtSetSessionFlushDenormals(nullptr, false), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetSessionFlushDenormals(session.get(), nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetSessionFlushDenormals(nullptr, nullptr), {"NULL"}));
  bool flush = false;
  ASSERT_TRUE(Ok(OdtGetSessionFlushDenormals(session.get(), &flush)));
  EXPECT_TRUE(flush); // the default, unchanged by the failed calls
  ASSERT_TRUE(Ok(OdtSetSessionFlushDenormals(session.get(), false)));
  ASSERT_TRUE(Ok(OdtGetSessionFlushDenormals(session.get(), &flush)));
  EXPECT_FALSE(flush);
}

TEST_F(CApiErrorTest, StopOnNonFiniteLoss) {
  EXPECT_TRUE(Fails(OdtSetSessionStopOnNonFiniteLoss(nullptr, true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetSessionStopOnNonFiniteLoss(session.get(), nullptr), {"NULL"}));
  bool stop = true;
  ASSERT_TRUE(Ok(OdtGetSessionStopOnNonFiniteLoss(session.get(), &stop)));
  EXPECT_FALSE(stop); // ORT's behaviour by default: training goes on
  // One NaN feature makes the loss NaN.
  void *data = nullptr;
  ASSERT_TRUE(Ok(OdtGetTensorData(inputs.owned[0].get(), &data)));
  static_cast<float *>(data)[3] = NAN;
  EXPECT_TRUE(std::isnan(trainStep(session.get(), inputs)));
  ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));

  ASSERT_TRUE(Ok(OdtSetSessionStopOnNonFiniteLoss(session.get(), true)));
  ASSERT_TRUE(Ok(OdtGetSessionStopOnNonFiniteLoss(session.get(), &stop)));
  EXPECT_TRUE(stop);
  std::vector<OdtValue *> outputs(1, nullptr);
  EXPECT_TRUE(Fails(OdtTrainStep(session.get(), inputs.size(), inputs.data(), 1,
                                 outputs.data()),
                    {"TrainStep", "the loss is NaN", "LazyResetGrad"}));
  EXPECT_EQ(outputs[0], nullptr);
  expectParametersKept();
  // Finite data trains as before.
  Inputs finite = defaultInputs();
  EXPECT_TRUE(std::isfinite(trainStep(session.get(), finite)));
}

// A session is not thread-safe: a call while another thread is inside one
// on the same session is refused with an error (it used to race: undefined
// behaviour, two data races under ThreadSanitizer), and the session stays
// usable. Independent sessions in parallel threads are fine (TSan test).
TEST_F(CApiErrorTest, ConcurrentUseOfOneSessionIsRefused) {
  // Two threads call TrainStep on one session until calls have overlapped
  // (a refusal) and both kinds of outcome were seen, or 20 s have passed
  // (a loaded machine may run one thread's calls alone for a while).
  std::atomic<int> ok{0}, refused{0}, other{0}, ready{0};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto hammer = [&]() {
    size_t count = 0;
    OdtGetTrainingModelOutputCount(session.get(), &count);
    ++ready;
    while (ready.load() < 2) {
    }
    while ((refused.load() == 0 || ok.load() < 10) &&
           std::chrono::steady_clock::now() < deadline) {
      std::vector<OdtValue *> outputs(count, nullptr);
      OdtStatus *status = OdtTrainStep(session.get(), inputs.size(),
                                       inputs.data(), count, outputs.data());
      for (OdtValue *value : outputs)
        OdtReleaseValue(value);
      if (!status) {
        ++ok;
        continue;
      }
      std::string message = OdtGetErrorMessage(status);
      OdtReleaseStatus(status);
      if (message.find("OdtTrainStep: the session is in use by another "
                       "thread") != std::string::npos)
        ++refused;
      else
        ++other;
    }
  };
  std::thread first(hammer), second(hammer);
  first.join();
  second.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(ok.load(), 10);
  EXPECT_GT(refused.load(), 0) << "two threads' calls never overlapped";
  // Still usable from one thread.
  EXPECT_TRUE(std::isfinite(trainStep(session.get(), inputs)));
}

TEST_F(CApiErrorTest, BadLearningRatesAndSchedules) {
  ASSERT_TRUE(Ok(OdtSetLearningRate(session.get(), 0.02f)));
  for (float lr : {-1.0f, NAN, INFINITY})
    EXPECT_TRUE(Fails(OdtSetLearningRate(session.get(), lr), {"learning rate"})) << lr;
  EXPECT_TRUE(Fails(OdtRegisterLinearLRScheduler(session.get(), -1, 4, 0.1f), {"warmup", "-1"}));
  EXPECT_TRUE(Fails(OdtRegisterLinearLRScheduler(session.get(), 1, -3, 0.1f), {"total", "-3"}));
  EXPECT_TRUE(Fails(OdtRegisterLinearLRScheduler(session.get(), 1, 4, -0.1f), {"-0.1"}));
  EXPECT_TRUE(Fails(OdtRegisterLinearLRScheduler(session.get(), 1, 4, NAN), {"nan"}));
  EXPECT_TRUE(Fails(OdtRegisterCosineLRScheduler(session.get(), 1, 4, 0.1f, NAN), {"cycles"}));
  EXPECT_TRUE(Fails(OdtRegisterCosineLRScheduler(session.get(), 1, 4, 0.1f, 0.0), {"cycles"}));
  EXPECT_TRUE(Fails(OdtRegisterConstantLRScheduler(session.get(), -2, 0.1f), {"-2"}));
  // Nothing changed: the rate is the last good one and no scheduler exists.
  float lr = 0;
  ASSERT_TRUE(Ok(OdtGetLearningRate(session.get(), &lr)));
  EXPECT_EQ(lr, 0.02f);
  EXPECT_TRUE(Fails(OdtSchedulerStep(session.get()), {"scheduler"}));
  OdtPropertyType type;
  const void *value = nullptr;
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), "odt.lr_scheduler", &type, &value),
                    {"no property"}));
}

TEST_F(CApiErrorTest, CorruptOrTruncatedCheckpoint) {
  std::string dir = freshDir();
  std::vector<uint8_t> good = readFile(defaultData() + "/checkpoint");
  ASSERT_GT(good.size(), 1000u);
  std::string path = dir + "/bad.ckpt";
  OdtCheckpointState *raw = nullptr;

  // Every truncation, from a file and from a buffer. The flatbuffer ends in
  // the NUL and padding of its last string: cutting only padding loses
  // nothing, so such a file may load, but then it must be the same state.
  State original = loadState(defaultData() + "/checkpoint");
  std::vector<float> values = parameters(original.get(), kMlpParameters);
  size_t accepted = 0, acceptedSame = 0;
  for (size_t length = 0; length < good.size(); ++length) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + length);
    OdtStatus *fromBuffer = OdtLoadCheckpointFromBuffer(cut.data(), cut.size(), &raw);
    if (!fromBuffer) {
      State loaded(raw);
      ++accepted;
      if (length + 4 > good.size() && sameBits(parameters(loaded.get(), kMlpParameters), values))
        ++acceptedSame;
      else
        ADD_FAILURE() << "a checkpoint truncated to " << length << " of " << good.size()
                      << " bytes was accepted";
    }
    OdtReleaseStatus(fromBuffer);
    if (length % 97 == 0 || length < 16) {
      writeFile(path, cut);
      EXPECT_TRUE(Fails(OdtLoadCheckpoint(path.c_str(), &raw), {"bad.ckpt"}))
          << "length " << length;
      State leak(raw);
      EXPECT_EQ(raw, nullptr);
    }
  }
  std::printf("[ info     ] %zu truncations accepted, all cutting only trailing padding\n",
              acceptedSame);
  EXPECT_EQ(accepted, acceptedSame);
  std::vector<uint8_t> half(good.begin(), good.begin() + good.size() / 2);
  writeFile(path, half);
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(path.c_str(), &raw), {"bad.ckpt", "truncated"}));

  // A foreign file identifier.
  std::vector<uint8_t> foreign = good;
  std::memcpy(foreign.data() + 4, "ORTC", 4);
  writeFile(path, foreign);
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(path.c_str(), &raw), {"not an ODTC", "ORTC"}));
  EXPECT_TRUE(Fails(OdtLoadCheckpointFromBuffer(foreign.data(), foreign.size(), &raw),
                    {"ODTC"}));
  // Random bytes; text; a single byte flipped anywhere in the first 256
  // (offsets and vtables): an error or a valid state, never a crash.
  std::vector<uint8_t> noise(good.size());
  uint32_t x = 12345;
  for (uint8_t &b : noise)
    b = uint8_t((x = x * 1103515245u + 12345u) >> 24);
  EXPECT_TRUE(Fails(OdtLoadCheckpointFromBuffer(noise.data(), noise.size(), &raw), {"checkpoint"}));
  std::string text = "this is not a checkpoint\n";
  EXPECT_TRUE(Fails(OdtLoadCheckpointFromBuffer(text.data(), text.size(), &raw), {"checkpoint"}));
  for (size_t at = 0; at < 256 && at < good.size(); ++at) {
    std::vector<uint8_t> flipped = good;
    flipped[at] ^= 0xFF;
    OdtStatus *status = OdtLoadCheckpointFromBuffer(flipped.data(), flipped.size(), &raw);
    if (status) {
      EXPECT_NE(std::string(OdtGetErrorMessage(status)), "") << at;
      OdtReleaseStatus(status);
    } else {
      // Accepted: it must then be usable without a crash.
      State flippedState(raw);
      OdtValue *value = nullptr;
      OdtStatus *get = OdtGetParameter(flippedState.get(), "fc2.bias", &value);
      OdtReleaseStatus(get);
      OdtReleaseValue(value);
    }
  }

  // A missing file.
  std::string missing = dir + "/no_such.ckpt";
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(missing.c_str(), &raw),
                    {"no_such.ckpt", "No such file"}));
  // A folder.
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(dir.c_str(), &raw), {dir}));
  EXPECT_EQ(raw, nullptr);
}

TEST_F(CApiErrorTest, SaveIntoMissingDirectory) {
  std::string dir = freshDir();
  std::string path = dir + "/missing/sub/checkpoint";
  EXPECT_TRUE(Fails(OdtSaveCheckpoint(state.get(), path.c_str(), true),
                    {"missing/sub/checkpoint", "No such file"}));
  EXPECT_TRUE(listDir(dir).empty()) << "something was created: "
                                    << ::testing::PrintToString(listDir(dir));
  // Onto a folder: refused, the folder stays.
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "/folder'").c_str()), 0);
  EXPECT_TRUE(Fails(OdtSaveCheckpoint(state.get(), (dir + "/folder").c_str(), true),
                    {"folder"}));
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"folder"});
}

TEST_F(CApiErrorTest, NullArguments) {
  OdtCheckpointState *rawState = nullptr;
  OdtTrainingSession *rawSession = nullptr;
  OdtValue *value = nullptr;
  OdtDataType type;
  OdtPropertyType propertyType;
  size_t count, rank;
  const int64_t *dims;
  const void *property;
  const char *name;
  float lr;
  void *data;
  int64_t shape[] = {2};
  int64_t one = 1;
  Value t = floats({2}, {1, 2});

  // Releasing NULL is a no-op; the message of NULL is "".
  OdtReleaseStatus(nullptr);
  OdtReleaseValue(nullptr);
  OdtReleaseCheckpointState(nullptr);
  OdtReleaseTrainingSession(nullptr);
  EXPECT_STREQ(OdtGetErrorMessage(nullptr), "");

  // Values.
  EXPECT_TRUE(Fails(OdtCreateTensor(ODT_FLOAT, shape, 1, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTensor(ODT_FLOAT, nullptr, 1, &value), {"NULL"}));
  EXPECT_TRUE(Ok(OdtCreateTensor(ODT_FLOAT, nullptr, 0, &value))) << "a scalar";
  OdtReleaseValue(value);
  value = nullptr;
  EXPECT_TRUE(Fails(OdtCreateTensorWithData(ODT_FLOAT, shape, 1, nullptr, 8, &value), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTensorWithData(ODT_FLOAT, shape, 1, &one, 8, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorDataType(nullptr, &type), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorDataType(t.get(), nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorShape(nullptr, &rank, &dims), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorShape(t.get(), nullptr, &dims), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorShape(t.get(), &rank, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorElementCount(nullptr, &count), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorElementCount(t.get(), nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorData(nullptr, &data), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetTensorData(t.get(), nullptr), {"NULL"}));

  // Checkpoint state.
  std::string ckpt = defaultData() + "/checkpoint";
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(nullptr, &rawState), {"NULL"}));
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(ckpt.c_str(), nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtLoadCheckpointFromBuffer(nullptr, 10, &rawState), {"NULL"}));
  EXPECT_TRUE(Fails(OdtLoadCheckpointFromBuffer(&one, 8, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtSaveCheckpoint(nullptr, "/tmp/x", true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtSaveCheckpoint(state.get(), nullptr, true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtAddProperty(nullptr, "p", ODT_INT_PROPERTY, &one), {"NULL"}));
  EXPECT_TRUE(Fails(OdtAddProperty(state.get(), nullptr, ODT_INT_PROPERTY, &one), {"NULL"}));
  EXPECT_TRUE(Fails(OdtAddProperty(state.get(), "p", ODT_INT_PROPERTY, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetProperty(nullptr, "p", &propertyType, &property), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), nullptr, &propertyType, &property), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), "p", nullptr, &property), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetProperty(state.get(), "p", &propertyType, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameterTypeAndShape(nullptr, "fc2.bias", &type, &rank, &dims), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameterTypeAndShape(state.get(), nullptr, &type, &rank, &dims), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameterTypeAndShape(state.get(), "fc2.bias", nullptr, &rank, &dims), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameterTypeAndShape(state.get(), "fc2.bias", &type, nullptr, &dims), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameterTypeAndShape(state.get(), "fc2.bias", &type, &rank, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtUpdateParameter(nullptr, "fc2.bias", t.get()), {"NULL"}));
  EXPECT_TRUE(Fails(OdtUpdateParameter(state.get(), nullptr, t.get()), {"NULL"}));
  EXPECT_TRUE(Fails(OdtUpdateParameter(state.get(), "fc2.bias", nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameter(nullptr, "fc2.bias", &value), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameter(state.get(), nullptr, &value), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParameter(state.get(), "fc2.bias", nullptr), {"NULL"}));

  // Sessions.
  std::string model = defaultModel();
  std::vector<uint8_t> library = readFile(model + "/libmodel.so");
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(nullptr, model.c_str(), &rawSession), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(state.get(), nullptr, &rawSession), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(state.get(), model.c_str(), nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromBuffer(nullptr, library.data(), library.size(),
                                                       &rawSession),
                    {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromBuffer(state.get(), nullptr, 100, &rawSession),
                    {"library"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromBuffer(state.get(), library.data(), 0,
                                                       &rawSession),
                    {"library"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromBuffer(state.get(), library.data(),
                                                       library.size(), nullptr),
                    {"NULL"}));
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromLinkedModel(state.get(), nullptr, &rawSession),
                    {"linked model"}));
  EXPECT_EQ(rawSession, nullptr);

  OdtTrainingSession *s = session.get();
  for (auto countFn : {OdtGetTrainingModelInputCount, OdtGetTrainingModelOutputCount,
                       OdtGetEvalModelInputCount, OdtGetEvalModelOutputCount}) {
    EXPECT_TRUE(Fails(countFn(nullptr, &count), {"NULL"}));
    EXPECT_TRUE(Fails(countFn(s, nullptr), {"NULL"}));
  }
  for (auto nameFn : {OdtGetTrainingModelInputName, OdtGetTrainingModelOutputName,
                      OdtGetEvalModelInputName, OdtGetEvalModelOutputName}) {
    EXPECT_TRUE(Fails(nameFn(nullptr, 0, &name), {"NULL"}));
    EXPECT_TRUE(Fails(nameFn(s, 0, nullptr), {"NULL"}));
  }
  std::vector<OdtValue *> outputs(1, nullptr);
  for (auto step : {OdtTrainStep, OdtEvalStep}) {
    EXPECT_TRUE(Fails(step(nullptr, inputs.size(), inputs.data(), 1, outputs.data()), {"NULL"}));
    EXPECT_TRUE(Fails(step(s, 2, nullptr, 1, outputs.data()), {"inputs", "NULL"}));
    EXPECT_TRUE(Fails(step(s, inputs.size(), inputs.data(), 1, nullptr), {"outputs", "NULL"}));
    const OdtValue *holes[] = {inputs.pointers[0], nullptr};
    EXPECT_TRUE(Fails(step(s, 2, holes, 1, outputs.data()), {"input 1", "NULL"}));
    EXPECT_EQ(outputs[0], nullptr);
  }
  EXPECT_TRUE(Fails(OdtLazyResetGrad(nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtOptimizerStep(nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtSetLearningRate(nullptr, 0.1f), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetLearningRate(nullptr, &lr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetLearningRate(s, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtRegisterLinearLRScheduler(nullptr, 1, 2, 0.1f), {"NULL"}));
  EXPECT_TRUE(Fails(OdtRegisterCosineLRScheduler(nullptr, 1, 2, 0.1f, 0.5), {"NULL"}));
  EXPECT_TRUE(Fails(OdtRegisterConstantLRScheduler(nullptr, 1, 0.1f), {"NULL"}));
  EXPECT_TRUE(Fails(OdtSchedulerStep(nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParametersSize(nullptr, &count, true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtGetParametersSize(s, nullptr, true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCopyParametersToBuffer(nullptr, t.get(), true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCopyParametersToBuffer(s, nullptr, true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCopyBufferToParameters(nullptr, t.get(), true), {"NULL"}));
  EXPECT_TRUE(Fails(OdtCopyBufferToParameters(s, nullptr, true), {"NULL"}));
  const char *logits[] = {"logits"};
  const char *holes[] = {nullptr};
  EXPECT_TRUE(Fails(OdtExportModelForInferencing(nullptr, "/tmp/x.onnx", 1, logits), {"NULL"}));
  EXPECT_TRUE(Fails(OdtExportModelForInferencing(s, nullptr, 1, logits), {"NULL"}));
  EXPECT_TRUE(Fails(OdtExportModelForInferencing(s, "/tmp/x.onnx", 1, nullptr), {"NULL"}));
  EXPECT_TRUE(Fails(OdtExportModelForInferencing(s, "/tmp/x.onnx", 1, holes), {"NULL"}));
  expectParametersKept();
}

TEST_F(CApiErrorTest, NameIndexOutOfRange) {
  const char *name = "untouched";
  for (auto nameFn : {OdtGetTrainingModelInputName, OdtGetTrainingModelOutputName,
                      OdtGetEvalModelInputName, OdtGetEvalModelOutputName}) {
    EXPECT_TRUE(Fails(nameFn(session.get(), 2, &name), {"index 2", "out of range"}));
    EXPECT_TRUE(Fails(nameFn(session.get(), SIZE_MAX, &name), {"out of range"}));
  }
  EXPECT_STREQ(name, "untouched");
}

TEST_F(CApiErrorTest, OutputsOfTheWrongShape) {
  // The loss is a float32 scalar: a [2] float buffer, an int64 scalar and a
  // [1] float buffer are all refused, and left as they were.
  struct Case {
    OdtDataType type;
    std::vector<int64_t> shape;
  } cases[] = {{ODT_FLOAT, {2}}, {ODT_INT64, {}}, {ODT_FLOAT, {1}}};
  for (const Case &c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.shape));
    OdtValue *raw = nullptr;
    ASSERT_TRUE(Ok(OdtCreateTensor(c.type, c.shape.data(), c.shape.size(), &raw)));
    Value wrong(raw);
    void *data = nullptr;
    ASSERT_TRUE(Ok(OdtGetTensorData(raw, &data)));
    std::memset(data, 0x7F, c.type == ODT_INT64 ? 8 : 4);
    std::vector<uint8_t> sentinel(static_cast<uint8_t *>(data),
                                  static_cast<uint8_t *>(data) + (c.type == ODT_INT64 ? 8 : 4));
    OdtValue *outputs[] = {raw};
    EXPECT_TRUE(Fails(OdtTrainStep(session.get(), inputs.size(), inputs.data(), 1, outputs),
                      {"output 'loss'", "float32 []"}));
    EXPECT_TRUE(Fails(OdtEvalStep(session.get(), inputs.size(), inputs.data(), 1, outputs),
                      {"output 'loss'"}));
    EXPECT_EQ(outputs[0], raw) << "the caller's output was replaced";
    EXPECT_EQ(std::vector<uint8_t>(static_cast<uint8_t *>(data),
                                   static_cast<uint8_t *>(data) + sentinel.size()),
              sentinel);
  }
  // The right one is written in place.
  OdtValue *raw = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTensor(ODT_FLOAT, nullptr, 0, &raw)));
  Value right(raw);
  OdtValue *outputs[] = {raw};
  ASSERT_TRUE(Ok(OdtTrainStep(session.get(), inputs.size(), inputs.data(), 1, outputs)));
  EXPECT_EQ(outputs[0], raw);
  EXPECT_GT(elements<float>(raw).at(0), 0.0f);
  // A wrong number of outputs.
  OdtValue *two[] = {nullptr, nullptr};
  EXPECT_TRUE(Fails(OdtTrainStep(session.get(), inputs.size(), inputs.data(), 2, two),
                    {"expected 1 outputs", "got 2"}));
  EXPECT_TRUE(Fails(OdtTrainStep(session.get(), inputs.size(), inputs.data(), 0, nullptr),
                    {"expected 1 outputs", "got 0"}));
  EXPECT_EQ(two[0], nullptr);
}

TEST_F(CApiErrorTest, WrongInputs) {
  std::vector<OdtValue *> outputs(1, nullptr);
  OdtTrainingSession *s = session.get();
  // Count.
  EXPECT_TRUE(Fails(OdtTrainStep(s, 1, inputs.data(), 1, outputs.data()),
                    {"expected 2 inputs", "input", "labels", "got 1"}));
  // Swapped: dtype.
  const OdtValue *swapped[] = {inputs.pointers[1], inputs.pointers[0]};
  EXPECT_TRUE(Fails(OdtTrainStep(s, 2, swapped, 1, outputs.data()), {"input"}));
  // Shape: 15 features instead of 16.
  Value narrow = floats({64, 15}, std::vector<float>(64 * 15, 0.0f));
  const OdtValue *badShape[] = {narrow.get(), inputs.pointers[1]};
  EXPECT_TRUE(Fails(OdtTrainStep(s, 2, badShape, 1, outputs.data()), {"input", "16", "15"}));
  // Batch mismatch between input and labels.
  Value fewer = tensor<int64_t>(ODT_INT64, {63}, std::vector<int64_t>(63, 0));
  const OdtValue *badBatch[] = {inputs.pointers[0], fewer.get()};
  EXPECT_TRUE(Fails(OdtTrainStep(s, 2, badBatch, 1, outputs.data()), {"labels", "63", "64"}));
  // A class label outside [0, 4).
  std::vector<int64_t> labels(64, 1);
  labels[10] = 4;
  Value badLabel = tensor<int64_t>(ODT_INT64, {64}, labels);
  const OdtValue *outOfRange[] = {inputs.pointers[0], badLabel.get()};
  EXPECT_TRUE(Fails(OdtTrainStep(s, 2, outOfRange, 1, outputs.data()), {"labels", "4"}));
  EXPECT_EQ(outputs[0], nullptr);
  // The session still works afterwards, and the failed steps left the
  // gradients alone: the next step's loss is the first step's.
  State fresh = loadState(defaultData() + "/checkpoint");
  Session other = createSession(fresh.get(), defaultModel());
  EXPECT_EQ(trainStep(s, inputs), trainStep(other.get(), inputs));
  ASSERT_TRUE(Ok(OdtOptimizerStep(s)));
  ASSERT_TRUE(Ok(OdtOptimizerStep(other.get())));
  EXPECT_TRUE(sameBits(parameters(state.get(), kMlpParameters),
                       parameters(fresh.get(), kMlpParameters)));
}

TEST_F(CApiErrorTest, BadTensors) {
  OdtValue *value = reinterpret_cast<OdtValue *>(1);
  int64_t negative[] = {2, -1};
  EXPECT_TRUE(Fails(OdtCreateTensor(ODT_FLOAT, negative, 2, &value), {"dims", "-1"}));
  EXPECT_EQ(value, nullptr);
  int64_t huge[] = {INT64_MAX / 2, 4};
  EXPECT_TRUE(Fails(OdtCreateTensor(ODT_FLOAT, huge, 2, &value), {"too large"}));
  int64_t two[] = {2};
  EXPECT_TRUE(Fails(OdtCreateTensor(static_cast<OdtDataType>(8), two, 1, &value),
                    {"unsupported data type 8"}));
  EXPECT_TRUE(Fails(OdtCreateTensor(static_cast<OdtDataType>(99), two, 1, &value),
                    {"unsupported data type 99"}));
  float data[3] = {1, 2, 3};
  EXPECT_TRUE(Fails(OdtCreateTensorWithData(ODT_FLOAT, two, 1, data, sizeof data, &value),
                    {"12 bytes", "needs 8"}));
  EXPECT_EQ(value, nullptr);
}

TEST_F(CApiErrorTest, SessionOverTheWrongCheckpointOrModel) {
  OdtTrainingSession *raw = reinterpret_cast<OdtTrainingSession *>(1);
  // ORT's checkpoint (784 inputs) with the default model (16 inputs).
  State ort = loadState(ortData("checkpoint.ckpt"));
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(ort.get(), defaultModel().c_str(), &raw),
                    {"fc1.weight", "shape"}));
  EXPECT_EQ(raw, nullptr);
  // Frozen in the checkpoint, trainable in the model.
  State frozen = loadState(artifact("frozen/checkpoint"));
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(frozen.get(), defaultModel().c_str(), &raw),
                    {"frozen", "trainable"}));
  // Not a model.
  std::string dir = freshDir();
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(state.get(), dir.c_str(), &raw), {dir}));
  std::string ckpt = defaultData() + "/checkpoint";
  EXPECT_TRUE(Fails(OdtCreateTrainingSession(state.get(), ckpt.c_str(), &raw), {"checkpoint"}));
  std::vector<uint8_t> garbage(4096, 0x42);
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromBuffer(state.get(), garbage.data(),
                                                       garbage.size(), &raw),
                    {"library"}));
  EXPECT_EQ(raw, nullptr);
}

/// Runs `call` in a child process (a gtest death test) and expects it to
/// return an error status, not to crash: the child prints the message and
/// exits 0 on an error, 1 on success; a signal fails the expectation.
#define EXPECT_ERROR_NOT_CRASH(call)                                           \
  EXPECT_EXIT(                                                                 \
      {                                                                        \
        OdtStatus *status_ = (call);                                           \
        std::fprintf(stderr, "message: %s\n", OdtGetErrorMessage(status_));   \
        std::_Exit(status_ ? 0 : 1);                                           \
      },                                                                       \
      ::testing::ExitedWithCode(0), "message: .+")

// A truncated libmodel.so, on disk or in a buffer: an error, not a crash.
// (Today dlopen maps segments past the end of the file and the process dies
// of SIGBUS: CompiledModel::load does not check the ELF file's extent.)
TEST_F(CApiErrorTest, TruncatedModelLibrary) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string dir = freshDir();
  std::vector<uint8_t> library = readFile(defaultModel() + "/libmodel.so");
  for (size_t length : {size_t(64), size_t(8000), library.size() / 2}) {
    SCOPED_TRACE(length);
    std::vector<uint8_t> cut(library.begin(), library.begin() + length);
    writeFile(dir + "/libmodel.so", cut);
    OdtTrainingSession *raw = nullptr;
    OdtCheckpointState *s = state.get();
    std::string folder = dir;
    EXPECT_ERROR_NOT_CRASH(OdtCreateTrainingSession(s, folder.c_str(), &raw));
    EXPECT_ERROR_NOT_CRASH(OdtCreateTrainingSessionFromBuffer(s, cut.data(), cut.size(), &raw));
  }
}

// OdtCreateTrainingSessionOnDevice: "cpu" is the ordinary session; a bad
// device name, a NULL device and a CUDA device on a machine without a
// driver (ODT_CUDA_DRIVER pointed at a missing file) are errors that leave
// `out` NULL. (test/runtime's CudaDriverTest covers the driver's own paths
// against a mock driver and the toolkit's stub.)
TEST_F(CApiErrorTest, SessionOnDevice) {
  OdtTrainingSession *raw = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTrainingSessionOnDevice(
      state.get(), defaultModel().c_str(), "cpu", &raw)));
  Session onCpu(raw);
  EXPECT_EQ(trainStep(onCpu.get(), inputs), trainStep(session.get(), inputs));

  for (const char *bad : {"gpu", "cuda:", "cuda:-2", "tpu:0"}) {
    raw = reinterpret_cast<OdtTrainingSession *>(0x1);
    EXPECT_TRUE(Fails(OdtCreateTrainingSessionOnDevice(
                          state.get(), defaultModel().c_str(), bad, &raw),
                      {"OdtCreateTrainingSessionOnDevice",
                       std::string("unknown device '") + bad + "'"}));
    EXPECT_EQ(raw, nullptr);
  }
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionOnDevice(
                        state.get(), defaultModel().c_str(), nullptr, &raw),
                    {"device must not be NULL"}));

  const char *previous = std::getenv("ODT_CUDA_DRIVER");
  std::string saved = previous ? previous : "";
  setenv("ODT_CUDA_DRIVER", "/no/such/dir/libcuda.so.1", 1);
  raw = nullptr;
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionOnDevice(
                        state.get(), defaultModel().c_str(), "cuda:0", &raw),
                    {"opening cuda:0", "could not load the CUDA driver",
                     "/no/such/dir/libcuda.so.1"}));
  EXPECT_EQ(raw, nullptr);
  if (previous)
    setenv("ODT_CUDA_DRIVER", saved.c_str(), 1);
  else
    unsetenv("ODT_CUDA_DRIVER");
  expectParametersKept();
}


// Values over device memory (OdtCreateTensorWithDeviceData): made without
// touching CUDA, refused by a CPU session before anything reads them, and
// never taken as outputs. (A session on a device takes them: the mock
// driver's DeviceSessionTest.)
TEST_F(CApiErrorTest, DeviceTensors) {
  int64_t shape[] = {2, 3};
  // Never dereferenced: nothing here may read it.
  void *address = reinterpret_cast<void *>(uintptr_t{0x7000});
  OdtValue *value = reinterpret_cast<OdtValue *>(1);
  EXPECT_TRUE(Fails(OdtCreateTensorWithDeviceData(ODT_FLOAT, shape, 2, nullptr, address, 24,
                                                  &value),
                    {"device is NULL"}));
  EXPECT_EQ(value, nullptr);
  EXPECT_TRUE(Fails(OdtCreateTensorWithDeviceData(ODT_FLOAT, shape, 2, "cpu", address, 24,
                                                  &value),
                    {"'cpu' is not a CUDA device", "OdtCreateTensorWithData"}));
  EXPECT_TRUE(Fails(OdtCreateTensorWithDeviceData(ODT_FLOAT, shape, 2, "gpu", address, 24,
                                                  &value),
                    {"OdtCreateTensorWithDeviceData", "gpu"}));
  EXPECT_TRUE(Fails(OdtCreateTensorWithDeviceData(ODT_FLOAT, shape, 2, "cuda", address, 12,
                                                  &value),
                    {"12 bytes", "needs 24"}));
  EXPECT_TRUE(Fails(OdtCreateTensorWithDeviceData(ODT_FLOAT, shape, 2, "cuda", nullptr, 24,
                                                  &value),
                    {"device_data is NULL"}));
  EXPECT_EQ(value, nullptr);
  ASSERT_TRUE(Ok(OdtCreateTensorWithDeviceData(ODT_FLOAT, shape, 2, "cuda:1", address, 24,
                                               &value)));
  Value onDevice(value);
  int device = -2;
  ASSERT_TRUE(Ok(OdtGetTensorDevice(onDevice.get(), &device)));
  EXPECT_EQ(device, 1);
  void *data = nullptr;
  ASSERT_TRUE(Ok(OdtGetTensorData(onDevice.get(), &data)));
  EXPECT_EQ(data, address);
  ASSERT_TRUE(Ok(OdtGetTensorDevice(inputs.pointers[0], &device)));
  EXPECT_EQ(device, -1);
  EXPECT_TRUE(Fails(OdtGetTensorDevice(nullptr, &device), {"NULL"}));

  // A CPU session refuses the batch in device memory, naming the input.
  State state = loadState(defaultData() + "/checkpoint");
  Session s = createSession(state.get(), defaultModel());
  ASSERT_TRUE(s);
  const int64_t *dims = nullptr;
  size_t rank = 0;
  ASSERT_TRUE(Ok(OdtGetTensorShape(inputs.pointers[0], &rank, &dims)));
  size_t count = 0;
  ASSERT_TRUE(Ok(OdtGetTensorElementCount(inputs.pointers[0], &count)));
  OdtValue *batch = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTensorWithDeviceData(ODT_FLOAT, dims, rank, "cuda", address,
                                               count * sizeof(float), &batch)));
  Value deviceBatch(batch);
  std::vector<const OdtValue *> deviceInputs = {batch, inputs.pointers[1]};
  std::vector<OdtValue *> outputs(1, nullptr);
  EXPECT_TRUE(Fails(OdtTrainStep(s.get(), 2, deviceInputs.data(), 1, outputs.data()),
                    {"TrainStep", "input", "cuda:0", "runs on the CPU"}));
  EXPECT_TRUE(Fails(OdtEvalStep(s.get(), 2, deviceInputs.data(), 1, outputs.data()),
                    {"EvalStep", "runs on the CPU"}));
  EXPECT_EQ(outputs[0], nullptr);
  // An output in device memory: outputs are written on the host.
  int64_t scalar[] = {1};
  OdtValue *loss = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTensorWithDeviceData(ODT_FLOAT, scalar, 0, "cuda", address, 4,
                                               &loss)));
  Value deviceLoss(loss);
  outputs[0] = loss;
  EXPECT_TRUE(Fails(OdtTrainStep(s.get(), inputs.size(), inputs.data(), 1, outputs.data()),
                    {"output 0", "device memory"}));
  // The refused steps changed nothing: the session trains as a fresh one.
  State fresh = loadState(defaultData() + "/checkpoint");
  Session other = createSession(fresh.get(), defaultModel());
  EXPECT_EQ(trainStep(s.get(), inputs), trainStep(other.get(), inputs));
}

} // namespace
} // namespace capi
