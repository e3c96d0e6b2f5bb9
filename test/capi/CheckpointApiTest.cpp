// CheckpointApiTest through the C API (ORT's CheckpointApiTest,
// docs/ORT-FACTS.md §7): save and load from a file and from a buffer,
// optimizer state, custom properties, nominal checkpoints, external data.

#include "CApiTestUtil.h"

#include <map>

namespace capi {
namespace {

struct ParameterInfo {
  std::string name;
  std::vector<int64_t> shape;
};

const std::vector<ParameterInfo> kOrtMlp = {{"fc1.weight", {500, 784}},
                                            {"fc1.bias", {500}},
                                            {"fc2.weight", {10, 500}},
                                            {"fc2.bias", {10}}};

void expectTypeAndShape(const OdtCheckpointState *state,
                        const ParameterInfo &info) {
  OdtDataType type = ODT_UNDEFINED;
  size_t rank = 99;
  const int64_t *dims = nullptr;
  ASSERT_TRUE(Ok(OdtGetParameterTypeAndShape(state, info.name.c_str(), &type,
                                             &rank, &dims)));
  EXPECT_EQ(type, ODT_FLOAT) << info.name;
  ASSERT_EQ(rank, info.shape.size()) << info.name;
  EXPECT_EQ(std::vector<int64_t>(dims, dims + rank), info.shape) << info.name;
}

std::map<std::string, std::vector<float>>
allParameters(const OdtCheckpointState *state,
              const std::vector<ParameterInfo> &infos) {
  std::map<std::string, std::vector<float>> values;
  for (const ParameterInfo &info : infos)
    values[info.name] = parameter(state, info.name);
  return values;
}

// ORT: CheckpointApiTest.SaveOnnxModelAsCheckpoint_ThenLoad_CPU — load ORT's
// checkpoint, save it, load the copy: the same parameters, names, dtypes and
// shapes; saving the copy again gives the same bytes.
TEST(CheckpointApiTest, SaveAndLoadFromFile) {
  std::string dir = freshDir();
  State original = loadState(ortData("checkpoint.ckpt"));
  ASSERT_TRUE(original);
  for (const ParameterInfo &info : kOrtMlp)
    expectTypeAndShape(original.get(), info);
  auto values = allParameters(original.get(), kOrtMlp);
  EXPECT_EQ(values["fc1.weight"].size(), 500u * 784u);

  std::string first = dir + "/first.ckpt", second = dir + "/second.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(original.get(), first.c_str(), false)));
  State copy = loadState(first);
  ASSERT_TRUE(copy);
  for (const ParameterInfo &info : kOrtMlp) {
    expectTypeAndShape(copy.get(), info);
    EXPECT_TRUE(sameBits(parameter(copy.get(), info.name), values[info.name]))
        << info.name;
  }
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(copy.get(), second.c_str(), false)));
  EXPECT_EQ(readFile(first), readFile(second))
      << "a loaded and re-saved checkpoint changed";
  // Nothing else is left in the folder (no temporary files).
  EXPECT_EQ(listDir(dir), (std::vector<std::string>{"first.ckpt", "second.ckpt"}));
}

// ORT: CheckpointApiTest.LoadCheckpointFromBuffer — the same state from the
// file's bytes; the bytes are copied, so the caller may reuse them at once.
TEST(CheckpointApiTest, SaveAndLoadFromBuffer) {
  std::string dir = freshDir();
  State fromFile = loadState(ortData("checkpoint.ckpt"));
  std::vector<uint8_t> bytes = readFile(ortData("checkpoint.ckpt"));
  OdtCheckpointState *raw = nullptr;
  ASSERT_TRUE(Ok(OdtLoadCheckpointFromBuffer(bytes.data(), bytes.size(), &raw)));
  State fromBuffer(raw);
  std::fill(bytes.begin(), bytes.end(), uint8_t(0xA5));
  bytes.clear();
  bytes.shrink_to_fit();
  for (const ParameterInfo &info : kOrtMlp) {
    expectTypeAndShape(fromBuffer.get(), info);
    EXPECT_TRUE(sameBits(parameter(fromBuffer.get(), info.name),
                         parameter(fromFile.get(), info.name)))
        << info.name;
  }
  // Both save to the same bytes.
  std::string a = dir + "/a.ckpt", b = dir + "/b.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(fromFile.get(), a.c_str(), true)));
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(fromBuffer.get(), b.c_str(), true)));
  EXPECT_EQ(readFile(a), readFile(b));

  // A saved checkpoint read back through a buffer.
  std::vector<uint8_t> saved = readFile(a);
  ASSERT_TRUE(Ok(OdtLoadCheckpointFromBuffer(saved.data(), saved.size(), &raw)));
  State again(raw);
  EXPECT_TRUE(sameBits(parameter(again.get(), "fc2.bias"),
                       parameter(fromFile.get(), "fc2.bias")));
}

// ORT: CheckpointApiTest.SaveOptimizerStateAsCheckpoint_ThenLoad_CPU — the
// moments and the step count are saved only when asked, survive a round trip
// unchanged, and a session over the loaded state resumes exactly.
TEST(CheckpointApiTest, OptimizerState) {
  std::string dir = freshDir();
  Inputs inputs = defaultInputs();
  State state = loadState(defaultData() + "/checkpoint");
  Session session = createSession(state.get(), defaultModel());
  ASSERT_TRUE(session);
  ASSERT_TRUE(Ok(OdtSetLearningRate(session.get(), 0.005f)));
  train(session.get(), inputs, 3);

  std::string with = dir + "/with.ckpt", without = dir + "/without.ckpt",
              again = dir + "/again.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), with.c_str(), true)));
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), without.c_str(), false)));
  // Adam's two moments per parameter: about three times the bytes.
  size_t withSize = readFile(with).size(), withoutSize = readFile(without).size();
  EXPECT_GT(withSize, 2 * withoutSize) << withSize << " vs " << withoutSize;

  // Round trip: load, save with the optimizer state, same bytes.
  State loaded = loadState(with);
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(loaded.get(), again.c_str(), true)));
  EXPECT_EQ(readFile(with), readFile(again));

  // The resumed session continues exactly where the first one is.
  Session resumed = createSession(loaded.get(), defaultModel());
  ASSERT_TRUE(resumed);
  float lr = 0;
  ASSERT_TRUE(Ok(OdtGetLearningRate(resumed.get(), &lr)));
  EXPECT_EQ(lr, 0.005f) << "odt keeps the learning rate in the checkpoint";
  std::vector<float> expected = train(session.get(), inputs, 3);
  std::vector<float> actual = train(resumed.get(), inputs, 3);
  EXPECT_TRUE(sameBits(actual, expected))
      << "resumed " << ::testing::PrintToString(actual) << " vs "
      << ::testing::PrintToString(expected);
  EXPECT_TRUE(sameBits(parameters(loaded.get(), kMlpParameters),
                       parameters(state.get(), kMlpParameters)));

  // Without the optimizer state the parameters are the same but Adam starts
  // over: the first loss agrees, the later ones do not.
  State fresh = loadState(without);
  EXPECT_TRUE(sameBits(parameters(fresh.get(), kMlpParameters),
                       parameters(loadState(with).get(), kMlpParameters)));
  Session restarted = createSession(fresh.get(), defaultModel());
  ASSERT_TRUE(Ok(OdtSetLearningRate(restarted.get(), 0.005f)));
  State reference = loadState(with);
  Session continued = createSession(reference.get(), defaultModel());
  std::vector<float> a = train(restarted.get(), inputs, 2);
  std::vector<float> b = train(continued.get(), inputs, 2);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_NE(a[1], b[1]) << "the moments made no difference";
}

// ORT: CheckpointApiTest.SaveCustomPropertyAsCheckpoint_ThenLoad_CPU.
TEST(CheckpointApiTest, CustomProperties) {
  std::string dir = freshDir();
  State state = loadState(defaultData() + "/checkpoint");
  int64_t epoch = 12345678901234LL;
  float accuracy = 0.875f;
  const char *note = "trained on device \xc3\xa9t\xc3\xa9"; // UTF-8
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "epoch", ODT_INT_PROPERTY, &epoch)));
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "accuracy", ODT_FLOAT_PROPERTY, &accuracy)));
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "note", ODT_STRING_PROPERTY, note)));
  // Replacing a property, with another type.
  float replaced = 2.5f;
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "to_replace", ODT_STRING_PROPERTY, "x")));
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "to_replace", ODT_FLOAT_PROPERTY, &replaced)));

  std::string path = dir + "/props.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), path.c_str(), false)));
  std::vector<uint8_t> bytes = readFile(path);
  OdtCheckpointState *raw = nullptr;
  ASSERT_TRUE(Ok(OdtLoadCheckpointFromBuffer(bytes.data(), bytes.size(), &raw)));
  State fromBuffer(raw);
  State fromFile = loadState(path);
  for (OdtCheckpointState *loaded : {state.get(), fromFile.get(), fromBuffer.get()}) {
    OdtPropertyType type;
    const void *value = nullptr;
    ASSERT_TRUE(Ok(OdtGetProperty(loaded, "epoch", &type, &value)));
    EXPECT_EQ(type, ODT_INT_PROPERTY);
    EXPECT_EQ(*static_cast<const int64_t *>(value), epoch);
    ASSERT_TRUE(Ok(OdtGetProperty(loaded, "accuracy", &type, &value)));
    EXPECT_EQ(type, ODT_FLOAT_PROPERTY);
    EXPECT_EQ(*static_cast<const float *>(value), accuracy);
    ASSERT_TRUE(Ok(OdtGetProperty(loaded, "note", &type, &value)));
    EXPECT_EQ(type, ODT_STRING_PROPERTY);
    EXPECT_STREQ(static_cast<const char *>(value), note);
    ASSERT_TRUE(Ok(OdtGetProperty(loaded, "to_replace", &type, &value)));
    EXPECT_EQ(type, ODT_FLOAT_PROPERTY);
    EXPECT_EQ(*static_cast<const float *>(value), replaced);
  }
  // Properties survive a session over the state and another save.
  Session session = createSession(fromFile.get(), defaultModel());
  ASSERT_TRUE(session);
  train(session.get(), defaultInputs(), 1);
  std::string after = dir + "/after.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(fromFile.get(), after.c_str(), true)));
  State reloaded = loadState(after);
  OdtPropertyType type;
  const void *value = nullptr;
  ASSERT_TRUE(Ok(OdtGetProperty(reloaded.get(), "note", &type, &value)));
  EXPECT_STREQ(static_cast<const char *>(value), note);
}

// ORT: CheckpointApiTest.LoadAndSaveNominalCheckpoint — a nominal checkpoint
// has names and dtypes but no values, and stays nominal through a save.
TEST(CheckpointApiTest, NominalCheckpoint) {
  std::string dir = freshDir();
  for (const std::string &path :
       {ortData("nominal_checkpoint"), defaultData() + "/nominal_checkpoint"}) {
    SCOPED_TRACE(path);
    State state = loadState(path);
    ASSERT_TRUE(state);
    for (const std::string &name : kMlpParameters) {
      OdtDataType type = ODT_UNDEFINED;
      size_t rank = 99;
      const int64_t *dims = reinterpret_cast<const int64_t *>(1);
      ASSERT_TRUE(Ok(OdtGetParameterTypeAndShape(state.get(), name.c_str(),
                                                 &type, &rank, &dims)));
      EXPECT_EQ(type, ODT_FLOAT) << name;
      EXPECT_EQ(rank, 0u) << name;
      EXPECT_EQ(dims, nullptr) << name;
      OdtValue *value = reinterpret_cast<OdtValue *>(1);
      EXPECT_TRUE(Fails(OdtGetParameter(state.get(), name.c_str(), &value),
                        {name, "nominal"}));
      EXPECT_EQ(value, nullptr) << "out must be NULL after a failure";
    }
    std::string saved = dir + "/nominal.ckpt";
    ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), saved.c_str(), true)));
    State again = loadState(saved);
    OdtValue *value = nullptr;
    EXPECT_TRUE(Fails(OdtGetParameter(again.get(), "fc1.bias", &value), {"nominal"}));
    // A nominal file holds no tensor data: it stays small.
    EXPECT_LT(readFile(saved).size(), 1024u);
  }
}

// ORT: CheckpointApiTest.SaveAndLoadExternalData — tensors in <checkpoint>.data
// (written here by scripts/odtc.py, ORT's layout). The C API cannot choose the
// 1.8 GB threshold at which odt itself writes external data; the runtime test
// (RuntimeHookTest.ExternalDataSavedByTheRuntime) covers odt's own writer.
TEST(CheckpointApiTest, ExternalData) {
  std::string dir = freshDir();
  std::string path = artifact("external/checkpoint");
  ASSERT_TRUE(exists(path + ".data"));
  State external = loadState(path);
  State inline_ = loadState(defaultData() + "/checkpoint");
  ASSERT_TRUE(external && inline_);
  for (const std::string &name : kMlpParameters)
    EXPECT_TRUE(sameBits(parameter(external.get(), name),
                         parameter(inline_.get(), name)))
        << name;

  // Trains like the inline checkpoint.
  Inputs inputs = defaultInputs();
  Session a = createSession(external.get(), defaultModel());
  Session b = createSession(inline_.get(), defaultModel());
  EXPECT_TRUE(sameBits(train(a.get(), inputs, 2), train(b.get(), inputs, 2)));

  // A small state is saved inline again: no .data file.
  std::string saved = dir + "/resaved.ckpt";
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(external.get(), saved.c_str(), true)));
  EXPECT_FALSE(exists(saved + ".data"));
  State reloaded = loadState(saved);
  EXPECT_TRUE(sameBits(parameters(reloaded.get(), kMlpParameters),
                       parameters(external.get(), kMlpParameters)));

  // From a buffer there is no file next to the checkpoint to read the
  // external data from: a clear error, not a crash.
  std::vector<uint8_t> bytes = readFile(path);
  OdtCheckpointState *raw = nullptr;
  EXPECT_TRUE(Fails(OdtLoadCheckpointFromBuffer(bytes.data(), bytes.size(), &raw),
                    {"external"}));
  EXPECT_EQ(raw, nullptr);

  // Missing .data file next to the checkpoint.
  std::string lonely = dir + "/lonely.ckpt";
  writeFile(lonely, bytes);
  EXPECT_TRUE(Fails(OdtLoadCheckpoint(lonely.c_str(), &raw), {"lonely.ckpt.data"}));
  EXPECT_EQ(raw, nullptr);
}

// The state's parameters and properties by index (what Python's
// CheckpointState.parameters/.properties mappings iterate), and each
// parameter's requires_grad and gradient.
TEST(CheckpointApiTest, NamesGradientsAndRequiresGrad) {
  State state = loadState(defaultData() + "/checkpoint");
  size_t count = 0;
  ASSERT_TRUE(Ok(OdtGetParameterCount(state.get(), &count)));
  ASSERT_GT(count, 0u);
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    const char *name = nullptr;
    ASSERT_TRUE(Ok(OdtGetParameterName(state.get(), i, &name)));
    names.emplace_back(name);
    // Each name is a parameter; none has a gradient before a session.
    bool requiresGrad = false;
    ASSERT_TRUE(Ok(OdtGetParameterRequiresGrad(state.get(), name, &requiresGrad)));
    EXPECT_TRUE(requiresGrad) << name;
    OdtValue *gradient = reinterpret_cast<OdtValue *>(1);
    ASSERT_TRUE(Ok(OdtGetParameterGradient(state.get(), name, &gradient)));
    EXPECT_EQ(gradient, nullptr) << name;
  }
  const char *name = nullptr;
  EXPECT_TRUE(Fails(OdtGetParameterName(state.get(), count, &name),
                    {"index " + std::to_string(count), "out of range"}));
  bool flag = false;
  EXPECT_TRUE(Fails(OdtGetParameterRequiresGrad(state.get(), "nope", &flag), {"'nope'"}));
  OdtValue *value = nullptr;
  EXPECT_TRUE(Fails(OdtGetParameterGradient(state.get(), "nope", &value), {"'nope'"}));
  EXPECT_TRUE(Fails(OdtGetParameterGradient(nullptr, "nope", &value), {"NULL"}));

  int64_t epoch = 3;
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "zeta", ODT_INT_PROPERTY, &epoch)));
  ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "alpha", ODT_STRING_PROPERTY, "a")));
  size_t propertyCount = 0;
  ASSERT_TRUE(Ok(OdtGetPropertyCount(state.get(), &propertyCount)));
  std::vector<std::string> properties;
  for (size_t i = 0; i < propertyCount; ++i) {
    ASSERT_TRUE(Ok(OdtGetPropertyName(state.get(), i, &name)));
    properties.emplace_back(name);
  }
  EXPECT_TRUE(std::is_sorted(properties.begin(), properties.end()));
  EXPECT_EQ(std::count(properties.begin(), properties.end(), "zeta"), 1);
  EXPECT_EQ(std::count(properties.begin(), properties.end(), "alpha"), 1);
  EXPECT_TRUE(Fails(OdtGetPropertyName(state.get(), propertyCount, &name),
                    {"out of range"}));

  // After a training step every trainable parameter has the step's
  // gradient, of the parameter's shape, and not all zero.
  Session session = createSession(state.get(), defaultModel());
  ASSERT_TRUE(session);
  ASSERT_TRUE(Ok(OdtLazyResetGrad(session.get())));
  train(session.get(), defaultInputs(), 1);
  for (const std::string &parameterName : names) {
    OdtValue *gradient = nullptr;
    ASSERT_TRUE(Ok(OdtGetParameterGradient(state.get(), parameterName.c_str(), &gradient)));
    ASSERT_NE(gradient, nullptr) << parameterName;
    size_t elements = 0, parameterElements = 0;
    ASSERT_TRUE(Ok(OdtGetTensorElementCount(gradient, &elements)));
    OdtValue *data = nullptr;
    ASSERT_TRUE(Ok(OdtGetParameter(state.get(), parameterName.c_str(), &data)));
    ASSERT_TRUE(Ok(OdtGetTensorElementCount(data, &parameterElements)));
    EXPECT_EQ(elements, parameterElements) << parameterName;
    void *raw = nullptr;
    ASSERT_TRUE(Ok(OdtGetTensorData(gradient, &raw)));
    const float *values = static_cast<const float *>(raw);
    EXPECT_TRUE(std::any_of(values, values + elements, [](float v) { return v != 0.0f; }))
        << parameterName;
    OdtReleaseValue(data);
    OdtReleaseValue(gradient);
  }
}

} // namespace
} // namespace capi
