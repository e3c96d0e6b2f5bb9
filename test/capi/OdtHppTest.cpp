// odt.hpp, the C++ layer over the C API: ownership (move-only RAII),
// Odt::Exception on every failing status, typed Values, properties as
// std::variant, and a training loop equal to the C API's.

#include "CApiTestUtil.h"

#include "odt/odt.hpp"

#include <type_traits>

namespace capi {
namespace {

template <typename T> constexpr bool kMoveOnly =
    !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
    std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>;
static_assert(kMoveOnly<Odt::Value>);
static_assert(kMoveOnly<Odt::CheckpointState>);
static_assert(kMoveOnly<Odt::TrainingSession>);
static_assert(std::is_base_of_v<std::runtime_error, Odt::Exception>);
static_assert(std::is_same_v<Odt::Property, std::variant<int64_t, float, std::string>>);

/// Runs `body`, which must throw an Odt::Exception whose message holds
/// every word; returns the message.
template <typename Body>
std::string expectThrows(Body body, std::initializer_list<std::string> words) {
  try {
    body();
  } catch (const Odt::Exception &error) {
    std::string message = error.what();
    for (const std::string &word : words)
      EXPECT_NE(message.find(word), std::string::npos)
          << "'" << word << "' missing from: " << message;
    return message;
  } catch (const std::exception &other) {
    ADD_FAILURE() << "not an Odt::Exception: " << other.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

std::vector<Odt::Value> defaultValues(bool training = true) {
  std::vector<Odt::Value> values;
  Inputs inputs = defaultInputs(training);
  for (Value &owned : inputs.owned)
    values.emplace_back(owned.release());
  return values;
}

TEST(OdtHppTest, ExceptionsCarryTheMessage) {
  std::string missing = std::string(ODT_CAPI_TMP_DIR) + "/no/such/checkpoint";
  expectThrows([&] { Odt::CheckpointState::LoadCheckpoint(missing); },
               {missing, "No such file"});
  // Catchable as std::runtime_error too.
  EXPECT_THROW(Odt::CheckpointState::LoadCheckpoint(missing), std::runtime_error);

  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(defaultData() + "/checkpoint");
  expectThrows([&] { state.GetProperty("nope"); }, {"no property 'nope'"});
  expectThrows([&] { state.AddProperty("odt.x", int64_t(1)); }, {"reserved"});
  expectThrows([&] { state.GetParameter("nope"); }, {"no parameter 'nope'"});
  expectThrows([&] { state.GetParameterTypeAndShape("nope"); }, {"no parameter 'nope'"});
  expectThrows([&] { state.UpdateParameter("fc2.bias", Odt::Value::CreateTensor<double>({4})); },
               {"float32", "float64"});
  expectThrows([&] { Odt::TrainingSession(state, "/no/such/model"); }, {"/no/such/model"});
  Odt::TrainingSession session(state, defaultModel());
  expectThrows([&] { session.TrainStep({}); }, {"expected 2 inputs"});
  expectThrows([&] { session.SchedulerStep(); }, {"scheduler"});
  expectThrows([&] { session.ExportModelForInferencing("/no/such/dir/m.onnx", {"logits"}); },
               {"/no/such/dir"});
  expectThrows([&] { Odt::Value::CreateTensor<float>({-1}); }, {"-1"});
}

TEST(OdtHppTest, OwnershipMovesAndReleases) {
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(defaultData() + "/checkpoint");
  EXPECT_TRUE(state);
  OdtCheckpointState *raw = state.get();
  Odt::CheckpointState moved = std::move(state);
  EXPECT_FALSE(state); // NOLINT(bugprone-use-after-move): documented empty
  EXPECT_EQ(moved.get(), raw);
  {
    Odt::TrainingSession session(moved, defaultModel());
    Odt::TrainingSession other = std::move(session);
    EXPECT_FALSE(session); // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(other);
    other.TrainStep(defaultValues());
  } // the session is released before the state
  Odt::Value value = Odt::Value::CreateTensor<int64_t>({3});
  Odt::Value empty;
  EXPECT_FALSE(empty);
  empty = std::move(value);
  EXPECT_TRUE(empty);
  EXPECT_FALSE(value); // NOLINT(bugprone-use-after-move)
  // release() hands the C object over.
  OdtValue *released = empty.release();
  EXPECT_FALSE(empty);
  OdtReleaseValue(released);
}

TEST(OdtHppTest, TypedValues) {
  Odt::Value owned = Odt::Value::CreateTensor<int64_t>({2, 3});
  EXPECT_EQ(owned.GetDataType(), ODT_INT64);
  EXPECT_EQ(owned.GetShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(owned.GetElementCount(), 6u);
  EXPECT_EQ(owned.ToVector<int64_t>(), std::vector<int64_t>(6, 0)) << "zero-filled";
  owned.GetTensorMutableData<int64_t>()[5] = 42;
  EXPECT_EQ(owned.GetTensorData<int64_t>()[5], 42);
  expectThrows([&] { owned.GetTensorData<float>(); }, {"int64", "float32"});
  expectThrows([&] { owned.GetTensorMutableData<int32_t>(); }, {"int64", "int32"});

  // Over user memory: both sides see the same bytes.
  std::vector<float> mine = {1, 2, 3, 4};
  Odt::Value view = Odt::Value::CreateTensor(mine.data(), mine.size(), {2, 2});
  EXPECT_EQ(view.GetTensorData<float>(), mine.data());
  mine[3] = 7;
  EXPECT_EQ(view.GetTensorData<float>()[3], 7.0f);
  expectThrows([&] { Odt::Value::CreateTensor(mine.data(), mine.size(), {5}); },
               {"16 bytes", "needs 20"});

  // Scalars, bool, and dtypes without a C++ type.
  Odt::Value scalar = Odt::Value::CreateTensor<float>({});
  EXPECT_TRUE(scalar.GetShape().empty());
  EXPECT_EQ(scalar.GetElementCount(), 1u);
  EXPECT_EQ(Odt::Value::CreateTensor<bool>({1}).GetDataType(), ODT_BOOL);
  Odt::Value half = Odt::Value::CreateTensor(ODT_FLOAT16, {8});
  EXPECT_EQ(half.GetDataType(), ODT_FLOAT16);
  EXPECT_NE(half.GetTensorRawData(), nullptr);
  Odt::TensorTypeAndShape info = half.GetTensorTypeAndShape();
  EXPECT_EQ(info.type, ODT_FLOAT16);
  EXPECT_EQ(info.GetElementCount(), 8u);
}

TEST(OdtHppTest, DeviceValues) {
  // Never dereferenced: making a device value makes no CUDA call.
  void *address = reinterpret_cast<void *>(uintptr_t{0x7000});
  Odt::Value onDevice = Odt::Value::CreateDeviceTensor(ODT_FLOAT, "cuda:1", address, 24, {2, 3});
  EXPECT_EQ(onDevice.GetDevice(), 1);
  EXPECT_EQ(onDevice.GetShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(onDevice.GetTensorRawData(), address);
  EXPECT_EQ(Odt::Value::CreateDeviceTensor(ODT_INT64, "cuda", address, 8, {1}).GetDevice(), 0);
  EXPECT_EQ(Odt::Value::CreateTensor<float>({2}).GetDevice(), -1) << "host memory";
  expectThrows([&] { Odt::Value::CreateDeviceTensor(ODT_FLOAT, "cpu", address, 24, {2, 3}); },
               {"'cpu' is not a CUDA device"});
  expectThrows([&] { Odt::Value::CreateDeviceTensor(ODT_FLOAT, "cuda", address, 12, {2, 3}); },
               {"12 bytes", "needs 24"});
  expectThrows([&] { Odt::Value().GetDevice(); }, {"NULL"});
}

TEST(OdtHppTest, Properties) {
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(defaultData() + "/checkpoint");
  state.AddProperty("i", int64_t(1) << 40);
  state.AddProperty("f", -0.5f);
  state.AddProperty("s", std::string(""));
  EXPECT_EQ(state.GetProperty("i"), Odt::Property(int64_t(1) << 40));
  EXPECT_EQ(state.GetProperty("f"), Odt::Property(-0.5f));
  EXPECT_EQ(state.GetProperty("s"), Odt::Property(std::string()));
  state.AddProperty("i", std::string("now a string"));
  EXPECT_EQ(std::get<std::string>(state.GetProperty("i")), "now a string");
  // odt's own properties are readable (the learning rate a session records).
  Odt::TrainingSession session(state, defaultModel());
  session.SetLearningRate(0.125f);
  EXPECT_EQ(state.GetProperty("odt.learning_rate"), Odt::Property(0.125f));
}

// The wrapper trains exactly like the C API, and reusing the outputs vector
// writes the loss in place.
TEST(OdtHppTest, TrainingLoopEqualsTheCApi) {
  Odt::CheckpointState state =
      Odt::CheckpointState::LoadCheckpoint(defaultData() + "/checkpoint");
  Odt::TrainingSession session(state, defaultModel());
  session.SetLearningRate(0.01f);
  EXPECT_EQ(session.GetLearningRate(), 0.01f);
  std::vector<Odt::Value> inputs = defaultValues();
  std::vector<Odt::Value> outputs;
  std::vector<float> losses;
  const float *lossAddress = nullptr;
  for (int step = 0; step < 5; ++step) {
    session.TrainStep(inputs, outputs);
    ASSERT_EQ(outputs.size(), 1u);
    if (step == 0)
      lossAddress = outputs[0].GetTensorData<float>();
    EXPECT_EQ(outputs[0].GetTensorData<float>(), lossAddress) << "not in place";
    losses.push_back(outputs[0].GetTensorData<float>()[0]);
    session.OptimizerStep();
    session.LazyResetGrad();
  }
  float evalLoss = session.EvalStep(defaultValues(false)).at(0).GetTensorData<float>()[0];

  State cState = loadState(defaultData() + "/checkpoint");
  Session cSession = createSession(cState.get(), defaultModel());
  ASSERT_TRUE(Ok(OdtSetLearningRate(cSession.get(), 0.01f)));
  EXPECT_TRUE(sameBits(losses, train(cSession.get(), defaultInputs(), 5)));
  EXPECT_EQ(evalLoss, evalStep(cSession.get(), defaultInputs(false)));
  EXPECT_LT(losses.back(), losses.front());

  // Schedulers through the wrapper.
  session.RegisterLinearLRScheduler(0, 10, 0.02f);
  EXPECT_EQ(session.GetLearningRate(), 0.02f);
  session.SchedulerStep(); // step count 5 of 10: half
  EXPECT_FLOAT_EQ(session.GetLearningRate(), 0.01f);
  session.RegisterConstantLRScheduler(0, 0.03f);
  session.SchedulerStep();
  EXPECT_FLOAT_EQ(session.GetLearningRate(), 0.03f);
  session.RegisterCosineLRScheduler(0, 10, 0.04f);
  session.SchedulerStep(); // progress 0.5 of half a cosine: 0.5 * (1 + cos(pi/2))
  EXPECT_NEAR(session.GetLearningRate(), 0.02f, 1e-7);
  Odt::SetSeed(1234);
  EXPECT_EQ(Odt::GetApiVersion(), uint32_t(ODT_API_VERSION));
}

} // namespace
} // namespace capi
