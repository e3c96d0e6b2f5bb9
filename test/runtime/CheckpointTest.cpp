// Checkpoint I/O: ORT's own checkpoint files, round trips, the layout of the
// files we write, external data, hostile inputs and atomic saving. Test names
// follow the spirit of ORT's CheckpointApiTest.

#include "Checkpoint.h"
#include "FileUtil.h"
#include "checkpoint_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <unistd.h>

namespace odt {
namespace {

namespace fs = std::filesystem;
namespace fbs = onnxruntime::fbs;
using ::testing::HasSubstr;

const std::string kOrtDir = std::string(ODT_SHARED_DIR) + "/conformance/ort/training_api";

/// A fresh folder per test under ODT_TEST_TMP_DIR, removed afterwards.
class TempDir {
public:
  TempDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::string(ODT_TEST_TMP_DIR) + "/" + info->test_suite_name() + "." + info->name() +
           "." + std::to_string(::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string &name) const { return path + "/" + name; }
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto &entry : fs::directory_iterator(path))
      names.insert(entry.path().filename().string());
    return names;
  }

  std::string path;
};

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const void *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char *>(data), std::streamsize(size));
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  writeBytes(path, bytes.data(), bytes.size());
}

/// Arms FileUtil's write-failure injection for the scope of a test.
class ScopedWriteFailure {
public:
  explicit ScopedWriteFailure(int64_t bytes) { testing::setWriteFailureAfterBytes(bytes); }
  ~ScopedWriteFailure() { testing::setWriteFailureAfterBytes(-1); }
};

/// A tensor whose bytes are a deterministic pattern.
Tensor patterned(DataType type, Shape shape, uint8_t seed) {
  Tensor tensor = Tensor::zeros(type, std::move(shape));
  auto *bytes = tensor.data<uint8_t>();
  for (size_t i = 0; i < tensor.byteSize(); ++i)
    bytes[i] = uint8_t(seed + i * 7);
  return tensor;
}

Tensor floats(Shape shape, float start) {
  Tensor tensor = Tensor::zeros(DataType::Float, std::move(shape));
  for (int64_t i = 0; i < tensor.size(); ++i)
    tensor.data<float>()[i] = start + 0.25f * float(i);
  return tensor;
}

std::shared_ptr<Parameter> makeParameter(const std::string &name, Tensor data,
                                         bool requiresGrad = true) {
  auto parameter = std::make_shared<Parameter>();
  parameter->name = name;
  parameter->dtype = data.dtype();
  parameter->data = std::move(data);
  parameter->requiresGrad = requiresGrad;
  return parameter;
}

/// Parameters out of name order, of several types, trainable and frozen,
/// with optimizer state and properties of all three kinds.
CheckpointState sampleState() {
  CheckpointState state;
  state.parameters.push_back(makeParameter("fc2.weight", floats({3, 4}, -1.0f)));
  state.parameters.push_back(makeParameter("fc1.weight", floats({4, 5}, 2.0f)));
  state.parameters.push_back(makeParameter("fc2.bias", floats({3}, 0.5f)));
  state.parameters.push_back(makeParameter("embedding.table", patterned(DataType::Double, {9}, 3), false));
  state.parameters.push_back(makeParameter("counts", patterned(DataType::Int64, {2, 2}, 11), false));
  state.parameters.push_back(makeParameter("mask", patterned(DataType::Bool, {5}, 1), false));
  OptimizerGroupState group;
  group.name = "group0";
  group.step = 7;
  group.initialLearningRate = 0.01f;
  for (const char *name : {"fc2.weight", "fc1.weight", "fc2.bias"}) {
    auto parameter = state.findParameter(name);
    ParameterOptimizerState &momentums = group.parameterStates[name];
    momentums.momentums["momentum1"] = patterned(DataType::Float, parameter->data.shape(), 5);
    momentums.momentums["momentum0"] = patterned(DataType::Float, parameter->data.shape(), 9);
  }
  state.optimizerGroups.push_back(group);
  state.properties["epoch"] = int64_t(3);
  state.properties["best_loss"] = 0.125f;
  state.properties["note"] = std::string("odt checkpoint");
  state.properties["learning_rate"] = 0.005f;
  state.properties["a_step"] = int64_t(-42);
  return state;
}

void expectSameTensor(const Tensor &a, const Tensor &b, const std::string &what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.empty(), b.empty());
  if (a.empty())
    return;
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.byteSize(), b.byteSize());
  if (a.byteSize()) {
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
  }
}

/// `loaded` holds exactly `saved`, with parameters in file order: trainable
/// then frozen, each sorted by name.
void expectSameState(const CheckpointState &saved, const CheckpointState &loaded,
                     bool withOptimizer = true) {
  EXPECT_EQ(saved.isNominal, loaded.isNominal);
  ASSERT_EQ(saved.parameters.size(), loaded.parameters.size());
  std::vector<std::shared_ptr<Parameter>> expected = saved.parameters;
  std::sort(expected.begin(), expected.end(), [](const auto &a, const auto &b) {
    if (a->requiresGrad != b->requiresGrad)
      return a->requiresGrad;
    return a->name < b->name;
  });
  for (size_t i = 0; i < expected.size(); ++i) {
    const Parameter &want = *expected[i];
    const Parameter &got = *loaded.parameters[i];
    EXPECT_EQ(want.name, got.name);
    EXPECT_EQ(want.dtype, got.dtype);
    EXPECT_EQ(want.requiresGrad, got.requiresGrad);
    expectSameTensor(want.data, got.data, want.name);
  }
  if (!withOptimizer) {
    EXPECT_TRUE(loaded.optimizerGroups.empty());
  } else {
    ASSERT_EQ(saved.optimizerGroups.size(), loaded.optimizerGroups.size());
    for (size_t g = 0; g < saved.optimizerGroups.size(); ++g) {
      const OptimizerGroupState &want = saved.optimizerGroups[g];
      const OptimizerGroupState &got = loaded.optimizerGroups[g];
      EXPECT_EQ(want.name, got.name);
      EXPECT_EQ(want.step, got.step);
      EXPECT_EQ(want.initialLearningRate, got.initialLearningRate);
      ASSERT_EQ(want.parameterStates.size(), got.parameterStates.size());
      for (const auto &[param, state] : want.parameterStates) {
        ASSERT_TRUE(got.parameterStates.count(param)) << param;
        const auto &gotMomentums = got.parameterStates.at(param).momentums;
        ASSERT_EQ(state.momentums.size(), gotMomentums.size());
        for (const auto &[name, tensor] : state.momentums) {
          ASSERT_TRUE(gotMomentums.count(name)) << name;
          expectSameTensor(tensor, gotMomentums.at(name), param + "/" + name);
        }
      }
    }
  }
  EXPECT_EQ(saved.properties, loaded.properties);
}

std::vector<std::string> tensorNames(
    const flatbuffers::Vector<flatbuffers::Offset<fbs::Tensor>> *tensors) {
  std::vector<std::string> names;
  for (flatbuffers::uoffset_t i = 0; tensors && i < tensors->size(); ++i)
    names.push_back(tensors->Get(i)->name()->str());
  return names;
}

template <typename List> std::vector<std::string> propertyNames(const List *list) {
  std::vector<std::string> names;
  for (flatbuffers::uoffset_t i = 0; list && i < list->size(); ++i)
    names.push_back(list->Get(i)->name()->str());
  return names;
}

/// A one-tensor checkpoint built by hand, for malformed-file tests.
struct HandBuilt {
  int32_t version = 2;
  const char *identifier = "ODTC";
  std::string name = "fc1.weight";
  std::vector<int64_t> dims = {2, 3};
  int32_t dataType = 1;
  size_t rawBytes = 24;
  int64_t externalOffset = -1;
  bool hasExternalData = false;
  bool duplicate = false;

  std::vector<uint8_t> build() const {
    flatbuffers::FlatBufferBuilder builder;
    std::vector<uint8_t> raw(rawBytes, 0x3f);
    std::vector<flatbuffers::Offset<fbs::Tensor>> tensors;
    for (int copy = 0; copy < (duplicate ? 2 : 1); ++copy) {
      auto nameOffset = builder.CreateString(name);
      auto dimsOffset = builder.CreateVector(dims);
      auto rawOffset = builder.CreateVector(raw);
      tensors.push_back(fbs::CreateTensor(builder, nameOffset, 0, dimsOffset,
                                          static_cast<fbs::TensorDataType>(dataType),
                                          rawBytes || externalOffset < 0 ? rawOffset : 0, 0,
                                          externalOffset));
    }
    auto list = builder.CreateVector(tensors);
    auto moduleState = fbs::CreateModuleState(builder, list, 0, false, hasExternalData);
    auto root = fbs::CreateCheckpoint(builder, version, moduleState);
    builder.Finish(root, identifier);
    return std::vector<uint8_t>(builder.GetBufferPointer(),
                                builder.GetBufferPointer() + builder.GetSize());
  }
};

std::string loadError(const std::vector<uint8_t> &bytes) {
  Result<CheckpointState> result = loadCheckpointFromBuffer(bytes.data(), bytes.size());
  EXPECT_FALSE(result.isOk());
  return result.isOk() ? std::string() : result.getStatus().message();
}

// ---------------------------------------------------------------------------
// ORT's files
// ---------------------------------------------------------------------------

TEST(CheckpointApiTest, LoadCheckpoint_OrtMlp) {
  Result<CheckpointState> result = loadCheckpoint(kOrtDir + "/checkpoint.ckpt");
  ASSERT_TRUE(result.isOk()) << result.getStatus().message();
  const CheckpointState &state = *result;
  EXPECT_FALSE(state.isNominal);
  EXPECT_TRUE(state.optimizerGroups.empty());
  EXPECT_TRUE(state.properties.empty());

  struct Expected {
    const char *name;
    Shape shape;
  };
  // File order: ORT sorts by name.
  const Expected expected[] = {
      {"fc1.bias", {500}}, {"fc1.weight", {500, 784}}, {"fc2.bias", {10}}, {"fc2.weight", {10, 500}}};
  ASSERT_EQ(state.parameters.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const Parameter &parameter = *state.parameters[i];
    SCOPED_TRACE(parameter.name);
    EXPECT_EQ(parameter.name, expected[i].name);
    EXPECT_EQ(parameter.dtype, DataType::Float);
    EXPECT_TRUE(parameter.requiresGrad);
    EXPECT_EQ(parameter.data.dtype(), DataType::Float);
    EXPECT_EQ(parameter.data.shape(), expected[i].shape);
    EXPECT_EQ(parameter.data.byteSize(), size_t(numElements(expected[i].shape)) * 4);
    EXPECT_TRUE(parameter.data.ownsData());
    // Initialised weights: finite, small, not all zero.
    double sumAbs = 0;
    for (int64_t k = 0; k < parameter.data.size(); ++k) {
      float value = parameter.data.data<float>()[k];
      ASSERT_TRUE(std::isfinite(value)) << k;
      ASSERT_LT(std::fabs(value), 1.0f) << k;
      sumAbs += std::fabs(value);
    }
    EXPECT_GT(sumAbs, 0.0);
  }
  // The first bytes of fc1.bias, as flatc --json shows them: f7 63 c9 3c.
  const uint8_t fc1BiasStart[] = {247, 99, 201, 60, 229, 36, 18, 189};
  EXPECT_EQ(std::memcmp(state.parameters[0]->data.data(), fc1BiasStart, 8), 0);
  const uint8_t fc2WeightStart[] = {21, 227, 185, 188, 93, 128, 250, 188};
  EXPECT_EQ(std::memcmp(state.parameters[3]->data.data(), fc2WeightStart, 8), 0);

  ASSERT_NE(state.findParameter("fc1.weight"), nullptr);
  EXPECT_EQ(state.findParameter("fc1.weight")->data.shape(), (Shape{500, 784}));
  EXPECT_EQ(state.findParameter("fc3.weight"), nullptr);
}

TEST(CheckpointApiTest, LoadCheckpoint_NominalState) {
  Result<CheckpointState> result = loadCheckpoint(kOrtDir + "/nominal_checkpoint");
  ASSERT_TRUE(result.isOk()) << result.getStatus().message();
  EXPECT_TRUE(result->isNominal);
  ASSERT_EQ(result->parameters.size(), 4u);
  // ORT wrote this one in model order, not sorted.
  const char *names[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
  for (size_t i = 0; i < 4; ++i) {
    const Parameter &parameter = *result->parameters[i];
    EXPECT_EQ(parameter.name, names[i]);
    EXPECT_EQ(parameter.dtype, DataType::Float);
    EXPECT_TRUE(parameter.requiresGrad);
    EXPECT_TRUE(parameter.data.empty());
  }
  EXPECT_TRUE(result->optimizerGroups.empty());
}

TEST(CheckpointApiTest, LoadCheckpoint_FrozenParameters) {
  Result<CheckpointState> result = loadCheckpoint(kOrtDir + "/ort_format/checkpoint");
  ASSERT_TRUE(result.isOk()) << result.getStatus().message();
  struct Expected {
    const char *name;
    Shape shape;
    bool requiresGrad;
  };
  const Expected expected[] = {{"fc2.bias", {5}, true},
                               {"fc2.weight", {5, 20}, true},
                               {"fc1.bias", {20}, false},
                               {"fc1.weight", {20, 10}, false}};
  ASSERT_EQ(result->parameters.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(result->parameters[i]->name, expected[i].name);
    EXPECT_EQ(result->parameters[i]->data.shape(), expected[i].shape);
    EXPECT_EQ(result->parameters[i]->requiresGrad, expected[i].requiresGrad);
  }
  EXPECT_FALSE(result->findParameter("fc1.weight")->requiresGrad);
  EXPECT_TRUE(result->findParameter("fc2.weight")->requiresGrad);
}

TEST(CheckpointApiTest, LoadCheckpoint_CustomOps) {
  Result<CheckpointState> result = loadCheckpoint(kOrtDir + "/custom_ops/checkpoint");
  ASSERT_TRUE(result.isOk()) << result.getStatus().message();
  ASSERT_EQ(result->parameters.size(), 2u);
  EXPECT_EQ(result->parameters[0]->name, "onnx::gemm.bias::2");
  EXPECT_EQ(result->parameters[0]->data.shape(), (Shape{10}));
  EXPECT_EQ(result->parameters[1]->name, "onnx::gemm.weight::1");
  EXPECT_EQ(result->parameters[1]->data.shape(), (Shape{5, 10}));
  for (const auto &parameter : result->parameters)
    EXPECT_TRUE(parameter->requiresGrad);
}

TEST(CheckpointApiTest, SaveCheckpoint_OrtFileRoundTrip) {
  TempDir dir;
  for (const char *name : {"checkpoint.ckpt", "ort_format/checkpoint", "custom_ops/checkpoint",
                           "nominal_checkpoint"}) {
    SCOPED_TRACE(name);
    Result<CheckpointState> original = loadCheckpoint(kOrtDir + "/" + name);
    ASSERT_TRUE(original.isOk()) << original.getStatus().message();
    std::string path = dir.file("resaved");
    Status saved = saveCheckpoint(*original, path, true);
    ASSERT_TRUE(saved.isOk()) << saved.message();
    Result<CheckpointState> reloaded = loadCheckpoint(path);
    ASSERT_TRUE(reloaded.isOk()) << reloaded.getStatus().message();
    if (original->isNominal) {
      // ORT wrote its nominal file in model order; we write it sorted.
      ASSERT_EQ(reloaded->parameters.size(), original->parameters.size());
      EXPECT_EQ(reloaded->parameters[0]->name, "fc1.bias");
      EXPECT_TRUE(reloaded->isNominal);
    } else {
      expectSameState(*original, *reloaded);
      // Tables are built in ORT's order, so the file is ORT's byte for byte.
      EXPECT_EQ(readBytes(path), readBytes(kOrtDir + "/" + name));
    }
  }
}

// ---------------------------------------------------------------------------
// Round trips and layout
// ---------------------------------------------------------------------------

TEST(CheckpointApiTest, SaveCheckpoint_RoundTripWithOptimizerState) {
  TempDir dir;
  CheckpointState state = sampleState();
  std::string path = dir.file("checkpoint");
  Status saved = saveCheckpoint(state, path, true);
  ASSERT_TRUE(saved.isOk()) << saved.message();
  EXPECT_FALSE(fs::exists(path + ".data"));

  Result<CheckpointState> loaded = loadCheckpoint(path);
  ASSERT_TRUE(loaded.isOk()) << loaded.getStatus().message();
  expectSameState(state, *loaded);
  OptimizerGroupState *group = loaded->findOptimizerGroup("group0");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->step, 7);
  EXPECT_FLOAT_EQ(group->initialLearningRate, 0.01f);
  EXPECT_EQ(loaded->findOptimizerGroup("group1"), nullptr);
  EXPECT_EQ(std::get<int64_t>(loaded->properties.at("epoch")), 3);
  EXPECT_EQ(std::get<float>(loaded->properties.at("best_loss")), 0.125f);
  EXPECT_EQ(std::get<std::string>(loaded->properties.at("note")), "odt checkpoint");

  // The same bytes from memory, at an aligned and at a misaligned address.
  std::vector<uint8_t> bytes = readBytes(path);
  Result<CheckpointState> fromBuffer = loadCheckpointFromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(fromBuffer.isOk()) << fromBuffer.getStatus().message();
  expectSameState(state, *fromBuffer);
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  Result<CheckpointState> misaligned = loadCheckpointFromBuffer(shifted.data() + 1, bytes.size());
  ASSERT_TRUE(misaligned.isOk()) << misaligned.getStatus().message();
  expectSameState(state, *misaligned);

  // Saving the loaded state again gives the same file.
  std::string again = dir.file("again");
  ASSERT_TRUE(saveCheckpoint(*loaded, again, true).isOk());
  EXPECT_EQ(readBytes(again), bytes);
}

TEST(CheckpointApiTest, SaveCheckpoint_WithoutOptimizerState) {
  TempDir dir;
  CheckpointState state = sampleState();
  std::string path = dir.file("checkpoint");
  ASSERT_TRUE(saveCheckpoint(state, path, false).isOk());
  Result<CheckpointState> loaded = loadCheckpoint(path);
  ASSERT_TRUE(loaded.isOk()) << loaded.getStatus().message();
  expectSameState(state, *loaded, /*withOptimizer=*/false);
}

TEST(CheckpointApiTest, SaveCheckpoint_SortedByName) {
  TempDir dir;
  CheckpointState state = sampleState();
  std::string path = dir.file("checkpoint");
  ASSERT_TRUE(saveCheckpoint(state, path, true).isOk());

  std::vector<uint8_t> bytes = readBytes(path);
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  ASSERT_TRUE(fbs::VerifyCheckpointBuffer(verifier));
  ASSERT_TRUE(fbs::CheckpointBufferHasIdentifier(bytes.data()));
  const fbs::Checkpoint *checkpoint = fbs::GetCheckpoint(bytes.data());
  EXPECT_EQ(checkpoint->version(), 2);
  const fbs::ModuleState *moduleState = checkpoint->module_state();
  ASSERT_NE(moduleState, nullptr);
  EXPECT_FALSE(moduleState->is_nominal_state());
  EXPECT_FALSE(moduleState->has_external_data());
  EXPECT_EQ(tensorNames(moduleState->requires_grad_params()),
            (std::vector<std::string>{"fc1.weight", "fc2.bias", "fc2.weight"}));
  EXPECT_EQ(tensorNames(moduleState->frozen_params()),
            (std::vector<std::string>{"counts", "embedding.table", "mask"}));
  const fbs::Tensor *weight = moduleState->requires_grad_params()->Get(0);
  EXPECT_EQ(weight->data_type(), fbs::TensorDataType::FLOAT);
  EXPECT_EQ(std::vector<int64_t>(weight->dims()->begin(), weight->dims()->end()),
            (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(weight->raw_data()->size(), 80u);
  EXPECT_EQ(weight->external_data_offset(), -1);
  EXPECT_EQ(moduleState->frozen_params()->Get(0)->data_type(), fbs::TensorDataType::INT64);

  ASSERT_NE(checkpoint->optimizer_groups(), nullptr);
  ASSERT_EQ(checkpoint->optimizer_groups()->size(), 1u);
  const fbs::OptimizerGroup *group = checkpoint->optimizer_groups()->Get(0);
  EXPECT_EQ(group->group_name()->str(), "group0");
  EXPECT_EQ(group->step(), 7);
  EXPECT_FLOAT_EQ(group->initial_learning_rate(), 0.01f);
  std::vector<std::string> params;
  for (flatbuffers::uoffset_t i = 0; i < group->optimizer_states()->size(); ++i) {
    const fbs::ParameterOptimizerState *paramState = group->optimizer_states()->Get(i);
    params.push_back(paramState->param_name()->str());
    EXPECT_EQ(tensorNames(paramState->momentums()),
              (std::vector<std::string>{"momentum0", "momentum1"}));
  }
  EXPECT_EQ(params, (std::vector<std::string>{"fc1.weight", "fc2.bias", "fc2.weight"}));

  const fbs::PropertyBag *bag = checkpoint->property_bag();
  ASSERT_NE(bag, nullptr);
  EXPECT_EQ(propertyNames(bag->ints()), (std::vector<std::string>{"a_step", "epoch"}));
  EXPECT_EQ(propertyNames(bag->floats()), (std::vector<std::string>{"best_loss", "learning_rate"}));
  EXPECT_EQ(propertyNames(bag->strings()), (std::vector<std::string>{"note"}));
  EXPECT_EQ(bag->ints()->Get(1)->value(), 3);
  EXPECT_EQ(bag->strings()->Get(0)->value()->str(), "odt checkpoint");
}

TEST(CheckpointApiTest, SaveCheckpoint_NominalState) {
  TempDir dir;
  CheckpointState state;
  state.isNominal = true;
  for (const char *name : {"fc2.weight", "fc1.bias"}) {
    auto parameter = std::make_shared<Parameter>();
    parameter->name = name;
    parameter->dtype = DataType::Float;
    state.parameters.push_back(parameter);
  }
  auto frozen = std::make_shared<Parameter>();
  frozen->name = "ids";
  frozen->dtype = DataType::Int64;
  frozen->requiresGrad = false;
  state.parameters.push_back(frozen);
  std::string path = dir.file("nominal");
  ASSERT_TRUE(saveCheckpoint(state, path, true).isOk());

  std::vector<uint8_t> bytes = readBytes(path);
  const fbs::Checkpoint *checkpoint = fbs::GetCheckpoint(bytes.data());
  EXPECT_TRUE(checkpoint->module_state()->is_nominal_state());
  const fbs::Tensor *first = checkpoint->module_state()->requires_grad_params()->Get(0);
  EXPECT_EQ(first->name()->str(), "fc1.bias");
  EXPECT_EQ(first->dims()->size(), 0u);
  EXPECT_EQ(first->raw_data()->size(), 0u);

  Result<CheckpointState> loaded = loadCheckpoint(path);
  ASSERT_TRUE(loaded.isOk()) << loaded.getStatus().message();
  EXPECT_TRUE(loaded->isNominal);
  ASSERT_EQ(loaded->parameters.size(), 3u);
  EXPECT_EQ(loaded->parameters[0]->name, "fc1.bias");
  EXPECT_EQ(loaded->parameters[1]->name, "fc2.weight");
  EXPECT_EQ(loaded->parameters[2]->name, "ids");
  EXPECT_EQ(loaded->parameters[2]->dtype, DataType::Int64);
  EXPECT_FALSE(loaded->parameters[2]->requiresGrad);
  for (const auto &parameter : loaded->parameters)
    EXPECT_TRUE(parameter->data.empty());
}

TEST(CheckpointApiTest, SaveCheckpoint_RejectsInvalidState) {
  TempDir dir;
  CheckpointState missingData = sampleState();
  missingData.parameters[0]->data = Tensor();
  Status status = saveCheckpoint(missingData, dir.file("a"), true);
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("parameter 'fc2.weight' has no data"));

  CheckpointState duplicate = sampleState();
  duplicate.parameters.push_back(makeParameter("fc2.bias", floats({3}, 0.0f)));
  status = saveCheckpoint(duplicate, dir.file("b"), true);
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("'fc2.bias' appears more than once"));

  CheckpointState badMomentum = sampleState();
  badMomentum.optimizerGroups[0].parameterStates["fc2.bias"].momentums["momentum0"] = Tensor();
  status = saveCheckpoint(badMomentum, dir.file("c"), true);
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("momentum 'momentum0' of parameter 'fc2.bias'"));
  EXPECT_TRUE(dir.entries().empty());
}

// ---------------------------------------------------------------------------
// External data
// ---------------------------------------------------------------------------

TEST(CheckpointApiTest, SaveCheckpoint_ExternalDataRoundTrip) {
  TempDir dir;
  CheckpointState state = sampleState();
  std::string path = dir.file("checkpoint");
  Status saved = saveCheckpoint(state, path, true, /*externalDataThreshold=*/100);
  ASSERT_TRUE(saved.isOk()) << saved.message();
  ASSERT_TRUE(fs::exists(path + ".data"));
  EXPECT_EQ(dir.entries(), (std::set<std::string>{"checkpoint", "checkpoint.data"}));

  std::vector<uint8_t> bytes = readBytes(path);
  const fbs::Checkpoint *checkpoint = fbs::GetCheckpoint(bytes.data());
  const fbs::ModuleState *moduleState = checkpoint->module_state();
  EXPECT_TRUE(moduleState->has_external_data());
  uint64_t dataSize = fs::file_size(path + ".data");
  auto checkTensor = [&](const fbs::Tensor *tensor) {
    SCOPED_TRACE(tensor->name()->str());
    uint64_t elementSize = tensor->data_type() == fbs::TensorDataType::DOUBLE ||
                                   tensor->data_type() == fbs::TensorDataType::INT64
                               ? 8
                           : tensor->data_type() == fbs::TensorDataType::BOOL ? 1
                                                                               : 4;
    uint64_t count = 1;
    for (int64_t dim : *tensor->dims())
      count *= uint64_t(dim);
    uint64_t bytes = count * elementSize;
    if (bytes >= 64) {
      EXPECT_GE(tensor->external_data_offset(), 0);
      EXPECT_TRUE(!tensor->raw_data() || tensor->raw_data()->size() == 0);
      EXPECT_EQ(uint64_t(tensor->external_data_offset()) % (elementSize == 8 ? 8 : 4), 0u);
      EXPECT_LE(uint64_t(tensor->external_data_offset()) + bytes, dataSize);
    } else {
      EXPECT_EQ(tensor->external_data_offset(), -1);
      ASSERT_NE(tensor->raw_data(), nullptr);
      EXPECT_EQ(tensor->raw_data()->size(), bytes);
    }
  };
  for (const auto *tensor : *moduleState->requires_grad_params())
    checkTensor(tensor);
  for (const auto *tensor : *moduleState->frozen_params())
    checkTensor(tensor);
  // fc2.bias (12 bytes), counts (32) and mask (5) stay inline; the
  // double table (72 bytes) goes out at an 8-byte aligned offset.
  EXPECT_EQ(moduleState->requires_grad_params()->Get(1)->external_data_offset(), -1);
  EXPECT_GE(moduleState->frozen_params()->Get(1)->external_data_offset(), 0);
  for (const auto *paramState : *checkpoint->optimizer_groups()->Get(0)->optimizer_states())
    for (const auto *momentum : *paramState->momentums())
      checkTensor(momentum);

  Result<CheckpointState> loaded = loadCheckpoint(path);
  ASSERT_TRUE(loaded.isOk()) << loaded.getStatus().message();
  expectSameState(state, *loaded);

  Result<CheckpointState> fromBuffer =
      loadCheckpointFromBuffer(bytes.data(), bytes.size(), path + ".data");
  ASSERT_TRUE(fromBuffer.isOk()) << fromBuffer.getStatus().message();
  expectSameState(state, *fromBuffer);

  Result<CheckpointState> noDataFile = loadCheckpointFromBuffer(bytes.data(), bytes.size());
  ASSERT_FALSE(noDataFile.isOk());
  EXPECT_THAT(noDataFile.getStatus().message(), HasSubstr("no external data file was given"));

  // Below the threshold the same state is written inline.
  std::string inlinePath = dir.file("inline");
  ASSERT_TRUE(saveCheckpoint(state, inlinePath, true, 1 << 20).isOk());
  EXPECT_FALSE(fs::exists(inlinePath + ".data"));
}

TEST(CheckpointApiTest, LoadCheckpoint_ExternalDataTruncatedOrMissing) {
  TempDir dir;
  CheckpointState state = sampleState();
  std::string path = dir.file("checkpoint");
  ASSERT_TRUE(saveCheckpoint(state, path, true, 100).isOk());
  std::vector<uint8_t> data = readBytes(path + ".data");

  data.resize(data.size() / 2);
  writeBytes(path + ".data", data);
  Result<CheckpointState> truncated = loadCheckpoint(path);
  ASSERT_FALSE(truncated.isOk());
  EXPECT_THAT(truncated.getStatus().message(), HasSubstr("checkpoint '" + path + "'"));
  EXPECT_THAT(truncated.getStatus().message(),
              HasSubstr("external data file '" + path + ".data' is truncated"));

  writeBytes(path + ".data", data.data(), 0);
  Result<CheckpointState> empty = loadCheckpoint(path);
  ASSERT_FALSE(empty.isOk());
  EXPECT_THAT(empty.getStatus().message(), HasSubstr("is truncated"));

  fs::remove(path + ".data");
  Result<CheckpointState> missing = loadCheckpoint(path);
  ASSERT_FALSE(missing.isOk());
  EXPECT_THAT(missing.getStatus().message(),
              HasSubstr("cannot open external data file '" + path + ".data'"));
  EXPECT_THAT(missing.getStatus().message(), HasSubstr("No such file or directory"));
}

// ---------------------------------------------------------------------------
// Bad inputs
// ---------------------------------------------------------------------------

TEST(CheckpointApiTest, LoadCheckpoint_MissingFile) {
  std::string path = std::string(ODT_TEST_TMP_DIR) + "/no/such/checkpoint";
  Result<CheckpointState> result = loadCheckpoint(path);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.getStatus().message(),
            "cannot open checkpoint '" + path + "': No such file or directory");
}

TEST(CheckpointApiTest, LoadCheckpoint_Directory) {
  TempDir dir;
  Result<CheckpointState> result = loadCheckpoint(dir.path);
  ASSERT_FALSE(result.isOk());
  EXPECT_THAT(result.getStatus().message(), HasSubstr("Is a directory"));
}

TEST(CheckpointApiTest, LoadCheckpoint_EmptyFile) {
  TempDir dir;
  std::string path = dir.file("empty");
  writeBytes(path, nullptr, 0);
  Result<CheckpointState> result = loadCheckpoint(path);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.getStatus().message(), "checkpoint '" + path + "': file is empty");
  Result<CheckpointState> fromBuffer = loadCheckpointFromBuffer(nullptr, 0);
  ASSERT_FALSE(fromBuffer.isOk());
  EXPECT_THAT(fromBuffer.getStatus().message(), HasSubstr("is empty"));
}

TEST(CheckpointApiTest, LoadCheckpoint_TruncatedOrtFile) {
  TempDir dir;
  std::vector<uint8_t> bytes = readBytes(kOrtDir + "/checkpoint.ckpt");
  ASSERT_EQ(bytes.size(), 1590376u);
  std::string path = dir.file("half.ckpt");
  writeBytes(path, bytes.data(), bytes.size() / 2);
  Result<CheckpointState> result = loadCheckpoint(path);
  ASSERT_FALSE(result.isOk());
  EXPECT_THAT(result.getStatus().message(), HasSubstr("checkpoint '" + path + "'"));
  EXPECT_THAT(result.getStatus().message(), HasSubstr("file is truncated"));

  // Every prefix of a small ORT checkpoint that loses referenced bytes is
  // refused as truncated. The file ends with "fc2.bias\0" and three bytes of
  // alignment padding; prefixes that drop only padding still hold everything.
  std::vector<uint8_t> small = readBytes(kOrtDir + "/ort_format/checkpoint");
  ASSERT_EQ(small.size(), 1632u);
  Result<CheckpointState> whole = loadCheckpointFromBuffer(small.data(), small.size());
  ASSERT_TRUE(whole.isOk());
  for (size_t size = 0; size < small.size(); ++size) {
    std::vector<uint8_t> prefix(small.begin(), small.begin() + long(size));
    Result<CheckpointState> cut = loadCheckpointFromBuffer(prefix.data(), prefix.size());
    if (size >= small.size() - 3) {
      ASSERT_TRUE(cut.isOk()) << size;
      expectSameState(*whole, *cut);
      continue;
    }
    ASSERT_FALSE(cut.isOk()) << size;
    EXPECT_THAT(cut.getStatus().message(),
                ::testing::AnyOf(HasSubstr("buffer is truncated"), HasSubstr("buffer is empty")))
        << size;
  }
}

TEST(CheckpointApiTest, LoadCheckpoint_RandomBytes) {
  std::mt19937 random(1234);
  for (size_t size : {1, 7, 8, 64, 1000, 65536}) {
    std::vector<uint8_t> bytes(size);
    for (uint8_t &byte : bytes)
      byte = uint8_t(random());
    std::string message = loadError(bytes);
    if (size >= 8) {
      EXPECT_THAT(message, HasSubstr("not an ODTC v2 checkpoint")) << size;
    }
    // With the right identifier the bytes are still refused.
    if (size >= 8) {
      std::memcpy(bytes.data() + 4, "ODTC", 4);
      EXPECT_FALSE(loadCheckpointFromBuffer(bytes.data(), bytes.size()).isOk());
    }
  }
}

TEST(CheckpointApiTest, LoadCheckpoint_CorruptedBytesNeverCrash) {
  // Flip bytes of real checkpoints (ORT's, and one of ours with optimizer
  // state, properties and external data): every result is either a clean load
  // or a clean error. Run under sanitizers to catch out-of-bounds reads.
  TempDir dir;
  std::string ours = dir.file("ours");
  ASSERT_TRUE(saveCheckpoint(sampleState(), ours, true, 100).isOk());
  std::mt19937 random(99);
  for (const std::string &path : {kOrtDir + "/ort_format/checkpoint", ours}) {
    SCOPED_TRACE(path);
    std::vector<uint8_t> original = readBytes(path);
    int failures = 0;
    for (int round = 0; round < 3000; ++round) {
      std::vector<uint8_t> bytes = original;
      int flips = 1 + int(random() % 4);
      for (int i = 0; i < flips; ++i)
        bytes[random() % bytes.size()] ^= uint8_t(1 + random() % 255);
      Result<CheckpointState> result =
          loadCheckpointFromBuffer(bytes.data(), bytes.size(), ours + ".data");
      if (!result.isOk()) {
        ++failures;
        EXPECT_THAT(result.getStatus().message(), HasSubstr("checkpoint buffer: "));
      }
    }
    EXPECT_GT(failures, 0);
  }
}

TEST(CheckpointApiTest, LoadCheckpoint_WrongIdentifier) {
  HandBuilt file;
  file.identifier = "ORTM";
  std::string message = loadError(file.build());
  EXPECT_THAT(message, HasSubstr("not an ODTC v2 checkpoint"));
  EXPECT_THAT(message, HasSubstr("'ORTM'"));
}

TEST(CheckpointApiTest, LoadCheckpoint_UnsupportedVersion) {
  HandBuilt file;
  file.version = 1;
  EXPECT_THAT(loadError(file.build()), HasSubstr("unsupported checkpoint version 1"));
  file.version = 3;
  EXPECT_THAT(loadError(file.build()), HasSubstr("unsupported checkpoint version 3"));
  file.version = 2;
  std::vector<uint8_t> good = file.build();
  EXPECT_TRUE(loadCheckpointFromBuffer(good.data(), good.size()).isOk());
}

TEST(CheckpointApiTest, LoadCheckpoint_RawDataSizeMismatch) {
  TempDir dir;
  HandBuilt file;
  file.dims = {500, 784};
  file.rawBytes = 100;
  std::string path = dir.file("bad.ckpt");
  writeBytes(path, file.build());
  Result<CheckpointState> result = loadCheckpoint(path);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.getStatus().message(),
            "checkpoint '" + path +
                "': tensor 'fc1.weight' holds 100 bytes, dims [500, 784] of float32 need 1568000");
}

TEST(CheckpointApiTest, LoadCheckpoint_InvalidTensors) {
  HandBuilt negative;
  negative.dims = {2, -3};
  EXPECT_THAT(loadError(negative.build()), HasSubstr("tensor 'fc1.weight' has a negative dimension"));

  HandBuilt unknownType;
  unknownType.dataType = 99;
  EXPECT_THAT(loadError(unknownType.build()), HasSubstr("unsupported data type dtype(99)"));
  HandBuilt stringType;
  stringType.dataType = 8;
  EXPECT_THAT(loadError(stringType.build()), HasSubstr("unsupported data type STRING"));

  HandBuilt unnamed;
  unnamed.name = "";
  EXPECT_THAT(loadError(unnamed.build()), HasSubstr("has no name"));

  HandBuilt duplicate;
  duplicate.duplicate = true;
  EXPECT_THAT(loadError(duplicate.build()), HasSubstr("'fc1.weight' appears more than once"));

  HandBuilt huge;
  huge.dims = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_THAT(loadError(huge.build()), HasSubstr("too large"));

  HandBuilt undeclaredExternal;
  undeclaredExternal.rawBytes = 0;
  undeclaredExternal.externalOffset = 0;
  EXPECT_THAT(loadError(undeclaredExternal.build()),
              HasSubstr("does not declare external data"));

  HandBuilt bothKinds;
  bothKinds.externalOffset = 0;
  bothKinds.hasExternalData = true;
  EXPECT_THAT(loadError(bothKinds.build()), HasSubstr("both raw data and an external data offset"));
}

// ---------------------------------------------------------------------------
// Atomic saving
// ---------------------------------------------------------------------------

TEST(CheckpointApiTest, SaveCheckpoint_MissingDirectory) {
  TempDir dir;
  std::string path = dir.file("missing/checkpoint");
  Status status = saveCheckpoint(sampleState(), path, true);
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("'" + path + "'"));
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
  EXPECT_TRUE(dir.entries().empty());

  // Likewise with external data: the .data file is not created either.
  status = saveCheckpoint(sampleState(), path, true, 100);
  ASSERT_FALSE(status.isOk());
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CheckpointApiTest, SaveCheckpoint_FailedWriteKeepsOldFile) {
  TempDir dir;
  std::string path = dir.file("checkpoint");
  CheckpointState old = sampleState();
  ASSERT_TRUE(saveCheckpoint(old, path, true).isOk());
  std::vector<uint8_t> before = readBytes(path);

  CheckpointState next = sampleState();
  next.parameters[0]->data.data<float>()[0] = 1234.5f;
  next.properties["epoch"] = int64_t(4);
  for (int64_t failAfter : {int64_t(0), int64_t(100), int64_t(before.size() - 1)}) {
    SCOPED_TRACE(failAfter);
    ScopedWriteFailure failure(failAfter);
    Status status = saveCheckpoint(next, path, true);
    ASSERT_FALSE(status.isOk());
    EXPECT_THAT(status.message(), HasSubstr("cannot write checkpoint '" + path + "'"));
    EXPECT_THAT(status.message(), HasSubstr("No space left on device"));
    EXPECT_EQ(readBytes(path), before);
    EXPECT_EQ(dir.entries(), std::set<std::string>{"checkpoint"}); // no temporary files
  }

  // Disarmed, the same save succeeds and replaces the file.
  ASSERT_TRUE(saveCheckpoint(next, path, true).isOk());
  EXPECT_NE(readBytes(path), before);
  EXPECT_EQ(dir.entries(), std::set<std::string>{"checkpoint"});
  Result<CheckpointState> loaded = loadCheckpoint(path);
  ASSERT_TRUE(loaded.isOk());
  EXPECT_EQ(std::get<int64_t>(loaded->properties.at("epoch")), 4);
}

TEST(CheckpointApiTest, SaveCheckpoint_FailedWriteKeepsOldExternalData) {
  TempDir dir;
  std::string path = dir.file("checkpoint");
  ASSERT_TRUE(saveCheckpoint(sampleState(), path, true, 100).isOk());
  std::vector<uint8_t> checkpointBefore = readBytes(path);
  std::vector<uint8_t> dataBefore = readBytes(path + ".data");
  const std::set<std::string> files = {"checkpoint", "checkpoint.data"};

  CheckpointState next = sampleState();
  next.parameters[1]->data.data<float>()[3] = -7.0f;
  // Fail inside the .data file, then inside the checkpoint after the .data
  // file was completely written: in both cases neither old file changes.
  for (int64_t failAfter : {int64_t(10), int64_t(dataBefore.size() + 10)}) {
    SCOPED_TRACE(failAfter);
    ScopedWriteFailure failure(failAfter);
    Status status = saveCheckpoint(next, path, true, 100);
    ASSERT_FALSE(status.isOk());
    EXPECT_THAT(status.message(), HasSubstr("No space left on device"));
    EXPECT_EQ(readBytes(path), checkpointBefore);
    EXPECT_EQ(readBytes(path + ".data"), dataBefore);
    EXPECT_EQ(dir.entries(), files);
  }
  Result<CheckpointState> loaded = loadCheckpoint(path);
  ASSERT_TRUE(loaded.isOk()) << loaded.getStatus().message();
  expectSameState(sampleState(), *loaded);
}

} // namespace
} // namespace odt
