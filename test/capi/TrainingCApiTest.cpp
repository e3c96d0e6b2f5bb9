// TrainingCApiTest (ORT's C API tests, docs/ORT-FACTS.md §7): properties,
// input/output names, ToBuffer/FromBuffer, sessions from files and from
// buffers, Get/UpdateParameter, nominal vs complete sessions — through
// odt.h, and through odt.hpp where ORT's test uses its C++ wrapper.

#include "CApiTestUtil.h"

#include "odt/odt.hpp"

namespace capi {
namespace {

std::vector<std::string> names(OdtTrainingSession *session,
                               OdtStatus *(*count)(const OdtTrainingSession *, size_t *),
                               OdtStatus *(*name)(const OdtTrainingSession *, size_t,
                                                  const char **)) {
  size_t n = 0;
  EXPECT_TRUE(Ok(count(session, &n)));
  std::vector<std::string> result;
  for (size_t i = 0; i < n; ++i) {
    const char *text = nullptr;
    EXPECT_TRUE(Ok(name(session, i, &text)));
    result.push_back(text ? text : "(null)");
  }
  return result;
}

/// The test inputs as Odt::Values (ownership moves over).
std::vector<Odt::Value> toOdt(Inputs inputs) {
  std::vector<Odt::Value> values;
  for (Value &owned : inputs.owned)
    values.emplace_back(owned.release());
  return values;
}

// ORT: TrainingCApiTest.LoadCheckpointFromBuffer + AddProperty/GetProperty
// through the C++ wrapper (Ort::Property = variant<int64_t, float, string>).
TEST(TrainingCApiTest, Properties) {
  std::string dir = freshDir();
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(ortData("checkpoint.ckpt"));
  state.AddProperty("int_property", int64_t(-7));
  state.AddProperty("float_property", 3.25f);
  state.AddProperty("string_property", std::string("hello"));
  EXPECT_EQ(std::get<int64_t>(state.GetProperty("int_property")), -7);
  EXPECT_EQ(std::get<float>(state.GetProperty("float_property")), 3.25f);
  EXPECT_EQ(std::get<std::string>(state.GetProperty("string_property")), "hello");

  Odt::CheckpointState::SaveCheckpoint(state, dir + "/props.ckpt");
  std::vector<uint8_t> bytes = readFile(dir + "/props.ckpt");
  Odt::CheckpointState loaded = Odt::CheckpointState::LoadCheckpointFromBuffer(bytes);
  EXPECT_EQ(loaded.GetProperty("int_property"), Odt::Property(int64_t(-7)));
  EXPECT_EQ(loaded.GetProperty("float_property"), Odt::Property(3.25f));
  EXPECT_EQ(loaded.GetProperty("string_property"), Odt::Property(std::string("hello")));

  // A string property's pointer stays valid while the property is unchanged.
  OdtPropertyType type;
  const void *value = nullptr;
  ASSERT_TRUE(Ok(OdtGetProperty(loaded.get(), "string_property", &type, &value)));
  int64_t other = 1;
  ASSERT_TRUE(Ok(OdtAddProperty(loaded.get(), "another", ODT_INT_PROPERTY, &other)));
  EXPECT_STREQ(static_cast<const char *>(value), "hello");
}

// ORT: TrainingCApiTest.InputNames / OutputNames — user inputs and outputs
// only (no parameters, gradient buffers or lazy_reset_grad).
TEST(TrainingCApiTest, InputOutputNames) {
  State ort = loadState(ortData("checkpoint.ckpt"));
  Session session = createSession(ort.get(), modelDir("ort_mlp"));
  ASSERT_TRUE(session);
  std::vector<std::string> inputs = {"input-0", "labels"};
  std::vector<std::string> outputs = {"onnx::loss::21273"};
  EXPECT_EQ(names(session.get(), OdtGetTrainingModelInputCount, OdtGetTrainingModelInputName),
            inputs);
  EXPECT_EQ(names(session.get(), OdtGetEvalModelInputCount, OdtGetEvalModelInputName), inputs);
  EXPECT_EQ(names(session.get(), OdtGetTrainingModelOutputCount, OdtGetTrainingModelOutputName),
            outputs);
  EXPECT_EQ(names(session.get(), OdtGetEvalModelOutputCount, OdtGetEvalModelOutputName),
            outputs);

  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(defaultData() + "/checkpoint");
  Odt::TrainingSession def(state, defaultModel());
  EXPECT_EQ(def.InputNames(true), (std::vector<std::string>{"input", "labels"}));
  EXPECT_EQ(def.InputNames(false), (std::vector<std::string>{"input", "labels"}));
  EXPECT_EQ(def.OutputNames(true), std::vector<std::string>{"loss"});
  EXPECT_EQ(def.OutputNames(false), std::vector<std::string>{"loss"});

  // Names stay valid while the session lives.
  const char *first = nullptr;
  ASSERT_TRUE(Ok(OdtGetTrainingModelInputName(session.get(), 0, &first)));
  trainStep(session.get(), ortInputs());
  EXPECT_STREQ(first, "input-0");
}

// ORT: TrainingCApiTest.ToBuffer / FromBuffer (C++ wrapper).
TEST(TrainingCApiTest, ToBufferFromBuffer) {
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(ortData("checkpoint.ckpt"));
  Odt::TrainingSession session(state, modelDir("ort_mlp"));
  Odt::Value buffer = session.ToBuffer(true);
  EXPECT_EQ(buffer.GetShape(), std::vector<int64_t>{397510});
  EXPECT_TRUE(sameBits(buffer.ToVector<float>(),
                       parameters(state.get(), kMlpParameters)));

  // FromBuffer with other values.
  float *data = buffer.GetTensorMutableData<float>();
  for (size_t i = 0; i < buffer.GetElementCount(); ++i)
    data[i] = float(i % 1000) * 1e-4f;
  session.FromBuffer(buffer);
  EXPECT_TRUE(sameBits(session.ToBuffer(true).ToVector<float>(), buffer.ToVector<float>()));
  EXPECT_EQ(state.GetParameter("fc2.bias").ToVector<float>(),
            std::vector<float>(data + 397500, data + 397510));

  // A buffer over the caller's memory works the same.
  std::vector<float> mine(397510, 0.5f);
  Odt::Value view = Odt::Value::CreateTensor(mine.data(), mine.size(),
                                             {int64_t(mine.size())});
  session.FromBuffer(view);
  EXPECT_EQ(state.GetParameter("fc1.bias").ToVector<float>(), std::vector<float>(500, 0.5f));
  std::fill(mine.begin(), mine.end(), 0.0f);
  session.ToBuffer(view, true);
  EXPECT_EQ(mine, std::vector<float>(397510, 0.5f));

  // With frozen parameters the length says which parameters are meant.
  Odt::CheckpointState frozen =
      Odt::CheckpointState::LoadCheckpoint(artifact("frozen/checkpoint"));
  Odt::TrainingSession frozenSession(frozen, modelDir("frozen"));
  Odt::Value all = frozenSession.ToBuffer(false);
  Odt::Value trainable = frozenSession.ToBuffer(true);
  EXPECT_EQ(all.GetElementCount(), 676u);
  EXPECT_EQ(trainable.GetElementCount(), 132u);
  std::fill_n(trainable.GetTensorMutableData<float>(), 132, 0.25f);
  frozenSession.FromBuffer(trainable);
  EXPECT_EQ(frozen.GetParameter("fc2.bias").ToVector<float>(), std::vector<float>(4, 0.25f));
  EXPECT_NE(frozen.GetParameter("fc1.bias").ToVector<float>(), std::vector<float>(32, 0.25f));
  std::fill_n(all.GetTensorMutableData<float>(), 676, 0.75f);
  frozenSession.FromBuffer(all);
  EXPECT_EQ(frozen.GetParameter("fc1.bias").ToVector<float>(), std::vector<float>(32, 0.75f));
  Odt::Value odd = Odt::Value::CreateTensor<float>({100});
  try {
    frozenSession.FromBuffer(odd);
    ADD_FAILURE() << "a buffer of 100 elements was accepted";
  } catch (const Odt::Exception &error) {
    std::string message = error.what();
    EXPECT_NE(message.find("100"), std::string::npos) << message;
    EXPECT_NE(message.find("676"), std::string::npos) << message;
    EXPECT_NE(message.find("132"), std::string::npos) << message;
  }
}

// ORT: TrainingCApiTest.TrainStep with ORT's golden losses, on a session
// made from the compiled folder and from its libmodel.so.
TEST(TrainingCApiTest, SessionFromFiles) {
  Inputs inputs = ortInputs();
  for (const std::string &path :
       {modelDir("ort_mlp"), modelDir("ort_mlp") + "/libmodel.so"}) {
    SCOPED_TRACE(path);
    State state = loadState(ortData("checkpoint.ckpt"));
    Session session = createSession(state.get(), path);
    ASSERT_TRUE(session);
    float loss1 = trainStep(session.get(), inputs);
    EXPECT_NEAR(loss1, ortGoldenLoss(1), 1e-5 * ortGoldenLoss(1));
    ASSERT_TRUE(Ok(OdtOptimizerStep(session.get()))); // lr 0.001
    ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
    float loss2 = trainStep(session.get(), inputs);
    EXPECT_NEAR(loss2, ortGoldenLoss(2), 1e-5 * ortGoldenLoss(2));
    std::printf("[ golden   ] %s: %.9g %.9g (ORT %.9g %.9g)\n", path.c_str(),
                loss1, loss2, ortGoldenLoss(1), ortGoldenLoss(2));
  }
}

// The parallel loops split each product by columns, so every value is
// computed by the same operations in the same order whatever the thread
// count: 1 and 2 threads train to bit-identical losses.
TEST(TrainingCApiTest, ThreadCountDoesNotChangeResults) {
  Inputs inputs = ortInputs();
  std::vector<float> losses[2];
  for (int threads : {1, 2}) {
    State state = loadState(ortData("checkpoint.ckpt"));
    Session session = createSession(state.get(), modelDir("ort_mlp"));
    ASSERT_TRUE(session);
    int current = -1;
    ASSERT_TRUE(Ok(OdtGetSessionThreads(session.get(), &current)));
    EXPECT_EQ(current, 0); // OpenMP's default until set
    ASSERT_TRUE(Ok(OdtSetSessionThreads(session.get(), threads)));
    ASSERT_TRUE(Ok(OdtGetSessionThreads(session.get(), &current)));
    EXPECT_EQ(current, threads);
    for (int step = 0; step < 3; ++step) {
      losses[threads - 1].push_back(trainStep(session.get(), inputs));
      ASSERT_TRUE(Ok(OdtOptimizerStep(session.get())));
      ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
    }
  }
  EXPECT_EQ(losses[0], losses[1]);
}

// ORT: TrainingCApiTest.CreateTrainingSessionFromBuffer — the bytes of
// libmodel.so; the same losses as from the file. The bytes are not needed
// after creation.
TEST(TrainingCApiTest, SessionFromBuffer) {
  Inputs inputs = defaultInputs();
  State fileState = loadState(defaultData() + "/checkpoint");
  Session fromFile = createSession(fileState.get(), defaultModel());

  std::vector<uint8_t> library = readFile(defaultModel() + "/libmodel.so");
  State bufferState = loadState(defaultData() + "/checkpoint");
  OdtTrainingSession *raw = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTrainingSessionFromBuffer(bufferState.get(), library.data(),
                                                    library.size(), &raw)));
  Session fromBuffer(raw);
  std::fill(library.begin(), library.end(), uint8_t(0));
  library.clear();
  library.shrink_to_fit();
  EXPECT_TRUE(sameBits(train(fromBuffer.get(), inputs, 5), train(fromFile.get(), inputs, 5)));
  EXPECT_EQ(evalStep(fromBuffer.get(), defaultInputs(false)),
            evalStep(fromFile.get(), defaultInputs(false)));

  // Two sessions from the same bytes at once (two in-memory libraries).
  std::vector<uint8_t> again = readFile(defaultModel() + "/libmodel.so");
  State s1 = loadState(defaultData() + "/checkpoint");
  State s2 = loadState(defaultData() + "/checkpoint");
  Odt::CheckpointState wrapped(s1.release());
  Odt::TrainingSession a(wrapped, again);
  OdtTrainingSession *b = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTrainingSessionFromBuffer(s2.get(), again.data(), again.size(), &b)));
  Session bOwned(b);
  EXPECT_EQ(trainStep(a.get(), inputs), trainStep(b, inputs));
}

// ORT: TrainingCApiTest.UpdateParameter / GetParameter — copies in and out;
// the session over the state sees an update at once.
TEST(TrainingCApiTest, GetAndUpdateParameter) {
  Inputs inputs = defaultInputs();
  State state = loadState(defaultData() + "/checkpoint");
  Session session = createSession(state.get(), defaultModel());
  float before = trainStep(session.get(), inputs);

  OdtValue *raw = nullptr;
  ASSERT_TRUE(Ok(OdtGetParameter(state.get(), "fc2.bias", &raw)));
  Value bias(raw);
  EXPECT_EQ(shapeOf(bias.get()), std::vector<int64_t>{4});
  OdtDataType type = ODT_UNDEFINED;
  ASSERT_TRUE(Ok(OdtGetTensorDataType(bias.get(), &type)));
  EXPECT_EQ(type, ODT_FLOAT);
  std::vector<float> original = elements<float>(bias.get());

  // GetParameter returns a copy: writing it changes nothing.
  void *data = nullptr;
  ASSERT_TRUE(Ok(OdtGetTensorData(bias.get(), &data)));
  static_cast<float *>(data)[0] += 1.0f;
  EXPECT_TRUE(sameBits(parameter(state.get(), "fc2.bias"), original));

  // UpdateParameter copies in; the session uses the new values.
  Value update = floats({4}, {1.0f, -1.0f, 0.5f, 2.0f});
  ASSERT_TRUE(Ok(OdtUpdateParameter(state.get(), "fc2.bias", update.get())));
  EXPECT_EQ(parameter(state.get(), "fc2.bias"), (std::vector<float>{1.0f, -1.0f, 0.5f, 2.0f}));
  ASSERT_TRUE(Ok(OdtGetTensorData(update.get(), &data)));
  static_cast<float *>(data)[0] = 99.0f; // the state kept a copy
  EXPECT_EQ(parameter(state.get(), "fc2.bias")[0], 1.0f);
  ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
  float after = trainStep(session.get(), inputs);
  EXPECT_NE(after, before);

  // The same through odt.hpp.
  Odt::CheckpointState other =
      Odt::CheckpointState::LoadCheckpoint(defaultData() + "/checkpoint");
  std::vector<float> values = {1.0f, -1.0f, 0.5f, 2.0f};
  other.UpdateParameter("fc2.bias", Odt::Value::CreateTensor(values.data(), 4, {4}));
  Odt::TensorTypeAndShape info = other.GetParameterTypeAndShape("fc1.weight");
  EXPECT_EQ(info.type, ODT_FLOAT);
  EXPECT_EQ(info.shape, (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(info.GetElementCount(), 512u);
  Odt::TrainingSession otherSession(other, defaultModel());
  EXPECT_EQ(trainStep(otherSession.get(), inputs), after);
}

// ORT: TrainingCApiTest.TrainModelFromNominalCheckpoint — ORT's MLP from
// nominal_checkpoint, completed with CopyBufferToParameters, trains exactly
// like the session over checkpoint.ckpt (and meets ORT's golden loss).
TEST(TrainingCApiTest, NominalVsCompleteSessions) {
  Inputs inputs = ortInputs();
  Odt::CheckpointState complete =
      Odt::CheckpointState::LoadCheckpoint(ortData("checkpoint.ckpt"));
  Odt::TrainingSession completeSession(complete, modelDir("ort_mlp"));
  Odt::Value all = completeSession.ToBuffer(false);

  Odt::CheckpointState nominal =
      Odt::CheckpointState::LoadCheckpoint(ortData("nominal_checkpoint"));
  Odt::TrainingSession nominalSession(nominal, modelDir("ort_mlp"));
  EXPECT_EQ(nominalSession.GetParametersSize(false), 397510u);
  try {
    nominalSession.TrainStep(toOdt(ortInputs()));
    ADD_FAILURE() << "TrainStep on a nominal state succeeded";
  } catch (const Odt::Exception &error) {
    EXPECT_NE(std::string(error.what()).find("nominal"), std::string::npos) << error.what();
  }
  nominalSession.FromBuffer(all); // all parameters: completes the state
  std::vector<float> a = train(nominalSession.get(), inputs, 3);
  std::vector<float> b = train(completeSession.get(), inputs, 3);
  EXPECT_TRUE(sameBits(a, b)) << ::testing::PrintToString(a) << " vs "
                              << ::testing::PrintToString(b);
  EXPECT_NEAR(a[0], ortGoldenLoss(1), 1e-5 * ortGoldenLoss(1));
  EXPECT_NEAR(a[1], ortGoldenLoss(2), 1e-5 * ortGoldenLoss(2));
}

} // namespace
} // namespace capi
