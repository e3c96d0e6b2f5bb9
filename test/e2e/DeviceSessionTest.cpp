// A training session on a CUDA device, run on the mock driver (test/runtime/
// mock_cuda: device memory is host memory, launches are recorded, kernels do
// not run, so no loss is checked here: the GPU tiling's numerics are
// gpu.loops_on_cpu's). ORT's MLP as a GPU build (sm_80, sm_90). What is
// checked is the bookkeeping of a session whose state lives on the device:
// - the state is uploaded at the first step and never again unless the host
//   wrote it; what the steps write stays on the device until the host reads
//   the state (GetParameter, SaveCheckpoint, export, the session's end);
// - a value the host wrote after the device's is not overwritten by it;
// - a step's first call with given shapes runs eagerly, its second captures
//   it as one graph (copies in, launches, copies out) and later calls
//   replay it: one graph launch, nothing allocated;
// - a second session on the state, and a device without memory, are errors.

#include "DeviceSteps.h"
#include "TrainingSession.h"
#include "mock_cuda/MockCudaControl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace odt;

namespace {

class DeviceSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(mock.load(ODT_MOCK_CUDA_DRIVER, error)) << error;
    mock.reset();
    // The runtime opens the driver that $ODT_CUDA_DRIVER names.
    ASSERT_EQ(setenv("ODT_CUDA_DRIVER", ODT_MOCK_CUDA_DRIVER, 1), 0);
    auto loaded =
        CompiledModel::load(std::string(ODT_E2E_MODELS_DIR) + "/ort_mlp_gpu");
    ASSERT_TRUE(loaded) << loaded.getStatus().message();
    model = loaded.take();
    auto read = loadCheckpoint(std::string(ODT_SHARED_DIR) +
                               "/conformance/ort/training_api/checkpoint.ckpt");
    ASSERT_TRUE(read) << read.getStatus().message();
    state = read.take();
  }

  std::unique_ptr<TrainingSession> open(CheckpointState &on) {
    auto spec = cuda::parseDeviceSpec("cuda:0");
    EXPECT_TRUE(spec);
    auto created = TrainingSession::create(on, model, *spec);
    EXPECT_TRUE(created) << created.getStatus().message();
    return created ? created.take() : nullptr;
  }

  /// The MLP's inputs for a batch (values do not matter: no kernel runs).
  std::vector<Tensor> batch(int64_t size) {
    std::vector<Tensor> inputs;
    inputs.push_back(Tensor::zeros(DataType::Float, {size, 784}));
    inputs.push_back(Tensor::zeros(DataType::Int32, {size}));
    return inputs;
  }

  std::vector<std::string> logLines(const std::string &prefix,
                                    size_t from = 0) {
    return mock.logLines(prefix, from);
  }
  size_t logLength() { return mock.logLength(); }

  /// The device memory (host memory, in the mock) of a state tensor.
  float *deviceValues(TrainingSession &session, ArgumentRole role,
                      int parameter) {
    auto address = session.module().deviceSteps()->stateBuffer(role, parameter);
    EXPECT_TRUE(address) << address.getStatus().message();
    return address ? reinterpret_cast<float *>(static_cast<uintptr_t>(*address))
                   : nullptr;
  }

  size_t parameterBytes(bool trainableOnly) {
    size_t bytes = 0;
    for (const ParameterSpec &spec : model->parameters())
      if (spec.trainable || !trainableOnly)
        bytes += numElements(spec.shape) * dataTypeSize(spec.dtype);
    return bytes;
  }

  /// `bytes` of device memory of the caller's own (a data loader's), from
  /// a device of its own on cuda:0; null on failure.
  void *callerMemory(size_t bytes) {
    if (!caller) {
      auto spec = cuda::parseDeviceSpec("cuda:0");
      auto opened = cuda::Device::open(*spec);
      if (!opened) {
        ADD_FAILURE() << opened.getStatus().message();
        return nullptr;
      }
      caller = opened.take();
    }
    auto buffer = caller->allocate(bytes, "the caller's memory");
    if (!buffer) {
      ADD_FAILURE() << buffer.getStatus().message();
      return nullptr;
    }
    return reinterpret_cast<void *>(static_cast<uintptr_t>(buffer->address));
  }

  odt::test::MockCudaControl mock;
  std::shared_ptr<CompiledModel> model;
  CheckpointState state;
  std::unique_ptr<cuda::Device> caller;
};

TEST_F(DeviceSessionTest, StepsAreCapturedOnceAndReplayed) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  std::vector<Tensor> inputs = batch(4), outputs;

  ASSERT_TRUE(session->trainStep(inputs, outputs)) << "first call";
  EXPECT_EQ(steps.counters().eagerRuns, 1u);
  EXPECT_EQ(steps.counters().graphCaptures, 0u);
  ASSERT_EQ(outputs.size(), 1u);

  size_t mark = logLength();
  ASSERT_TRUE(session->trainStep(inputs, outputs)) << "second call";
  EXPECT_EQ(steps.counters().graphCaptures, 1u);
  EXPECT_EQ(steps.counters().graphReplays, 1u);
  // Captured with the launches of the first call, then replayed once.
  EXPECT_EQ(logLines("capture begin", mark).size(), 1u);
  EXPECT_EQ(logLines("graph launch", mark).size(), 1u);
  EXPECT_EQ(logLines("alloc", mark).size(), 0u)
      << "the eager call left every block the capture needs";

  mark = logLength();
  ASSERT_TRUE(session->trainStep(inputs, outputs)) << "third call";
  EXPECT_EQ(steps.counters().graphCaptures, 1u);
  EXPECT_EQ(steps.counters().graphReplays, 2u);
  // One graph launch: its copies in (inputs, the lazy-reset flag), its
  // kernels and its copy out (the loss), nothing else.
  std::vector<std::string> events = logLines("", mark);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front(), "graph launch");
  size_t launches = logLines("launch train_", mark).size();
  size_t trainKernels = 0;
  for (const GPUKernelSpec &kernel : model->gpuKernels())
    trainKernels += kernel.name.compare(0, 6, "train_") == 0;
  EXPECT_EQ(launches, trainKernels);
  EXPECT_EQ(logLines("copy to device", mark).size(), 3u);
  EXPECT_EQ(logLines("copy to host", mark).size(), 1u);
  EXPECT_EQ(events.size(), 1 + launches + 3 + 1);

  // The optimizer and eval steps: the same policy, each its own graphs.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(session->optimizerStep());
  ASSERT_TRUE(session->evalStep(inputs, outputs));
  EXPECT_EQ(steps.counters().eagerRuns, 3u);
  EXPECT_EQ(steps.counters().graphCaptures, 2u);

  // Another batch size: its own eager call, capture and replays; the first
  // shape's graph stays and replays.
  std::vector<Tensor> other = batch(7);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(session->trainStep(other, outputs));
  ASSERT_EQ(outputs[0].shape(), Shape{});
  EXPECT_EQ(steps.counters().graphCaptures, 3u);
  size_t replays = steps.counters().graphReplays;
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  EXPECT_EQ(steps.counters().graphReplays, replays + 1);
  EXPECT_EQ(steps.counters().graphCaptures, 3u);
}

TEST_F(DeviceSessionTest, ATrainingIterationWaitsOnce) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  std::vector<Tensor> inputs = batch(4), outputs;
  auto iteration = [&] {
    ASSERT_TRUE(session->trainStep(inputs, outputs));
    ASSERT_TRUE(session->optimizerStep());
    ASSERT_TRUE(session->lazyResetGrad());
  };
  for (int i = 0; i < 3; ++i)
    iteration();
  // TrainStep waits (for the loss), and with it for the optimizer step
  // left running before it; OptimizerStep does not wait.
  size_t waits = steps.counters().waits;
  for (int i = 0; i < 4; ++i)
    iteration();
  EXPECT_EQ(steps.counters().waits, waits + 4);
  // The optimizer step left running is waited for by whoever needs it:
  // the state's values...
  waits = steps.counters().waits;
  ASSERT_TRUE(session->getLearningRate());
  EXPECT_EQ(steps.counters().waits, waits) << "the learning rate is the host's";
  ASSERT_TRUE(state.synchronizeHost());
  EXPECT_EQ(steps.counters().waits, waits + 1);
  ASSERT_TRUE(state.synchronizeHost());
  EXPECT_EQ(steps.counters().waits, waits + 1) << "nothing left to wait for";
  // ...the step count a scheduler reads...
  LRSchedulerConfig linear;
  linear.kind = "linear";
  linear.warmupSteps = 2;
  linear.totalSteps = 100;
  linear.initialLearningRate = 0.01f;
  ASSERT_TRUE(session->registerScheduler(linear));
  ASSERT_TRUE(session->optimizerStep());
  EXPECT_EQ(steps.counters().waits, waits + 1);
  ASSERT_TRUE(session->schedulerStep());
  EXPECT_EQ(steps.counters().waits, waits + 2);
  // ...and the next optimizer step (the count it is given includes this
  // one's update).
  ASSERT_TRUE(session->optimizerStep());
  ASSERT_TRUE(session->optimizerStep());
  EXPECT_EQ(steps.counters().waits, waits + 3);
}

TEST_F(DeviceSessionTest, ShapesPastTheLimitRunEagerly) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  std::vector<Tensor> outputs;
  size_t limit = cuda::DeviceSteps::kMaxShapesPerStep;
  // Each batch size twice: captured on its second call while under the
  // limit; past it, both calls eager (through buffers that grow).
  for (size_t size = 1; size <= limit + 3; ++size)
    for (int call = 0; call < 2; ++call) {
      std::vector<Tensor> inputs = batch(static_cast<int64_t>(size));
      ASSERT_TRUE(session->trainStep(inputs, outputs)) << size;
    }
  EXPECT_EQ(steps.counters().graphCaptures, limit);
  EXPECT_EQ(steps.counters().eagerRuns, limit + 2 * 3);
  // The kept shapes still replay.
  std::vector<Tensor> inputs = batch(1);
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  EXPECT_EQ(steps.counters().graphReplays, limit + 1);
}

TEST_F(DeviceSessionTest, TheStateIsUploadedOnceAndReadBackOnDemand) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  std::vector<Tensor> inputs = batch(4), outputs;
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  // Every parameter and every trainable parameter's gradient went up once.
  size_t uploaded = steps.counters().stateBytesUploaded;
  EXPECT_EQ(uploaded, parameterBytes(false) + parameterBytes(true));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(session->trainStep(inputs, outputs));
    ASSERT_TRUE(session->optimizerStep());
  }
  // The moments went up at the first optimizer step; nothing since.
  EXPECT_EQ(steps.counters().stateBytesUploaded,
            uploaded + 2 * parameterBytes(true));
  EXPECT_EQ(steps.counters().stateBytesDownloaded, 0u);

  // What the device holds is what the host reads: a parameter's device
  // copy given new values (as the optimizer's kernels would) comes back
  // through GetParameter's path and a saved checkpoint.
  Module &module = session->module();
  int bias = -1;
  for (size_t i = 0; i < module.parameters().size(); ++i)
    if (module.parameters()[i]->name == "fc1.bias")
      bias = static_cast<int>(i);
  ASSERT_GE(bias, 0);
  float *onDevice = deviceValues(*session, ArgumentRole::Parameter, bias);
  ASSERT_TRUE(onDevice);
  size_t count = module.parameters()[bias]->data.size();
  for (size_t i = 0; i < count; ++i)
    onDevice[i] = 0.25f + static_cast<float>(i);
  float *gradient = deviceValues(*session, ArgumentRole::GradientBuffer, bias);
  ASSERT_TRUE(gradient);
  gradient[0] = -3.5f;

  ASSERT_TRUE(state.synchronizeHost());
  EXPECT_EQ(module.parameters()[bias]->data.data<float>()[1], 1.25f);
  EXPECT_EQ(module.parameters()[bias]->gradient.data<float>()[0], -3.5f);
  size_t downloaded = steps.counters().stateBytesDownloaded;
  EXPECT_GE(downloaded, parameterBytes(true));
  // Nothing is newer on the device now: a second read copies nothing.
  ASSERT_TRUE(state.synchronizeHost());
  EXPECT_EQ(steps.counters().stateBytesDownloaded, downloaded);

  // After another optimizer step, a saved checkpoint holds the device's
  // values without anyone asking for them first.
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  ASSERT_TRUE(session->optimizerStep());
  onDevice[2] = 42.0f;
  std::string path = ::testing::TempDir() + "/device_session.ckpt";
  ASSERT_TRUE(saveCheckpoint(state, path, true));
  auto saved = loadCheckpoint(path);
  ASSERT_TRUE(saved) << saved.getStatus().message();
  EXPECT_EQ(saved->findParameter("fc1.bias")->data.data<float>()[2], 42.0f);
  EXPECT_EQ(saved->findParameter("fc1.bias")->data.data<float>()[1], 1.25f);
}

TEST_F(DeviceSessionTest, HostWritesWinOverOlderDeviceValues) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  std::vector<Tensor> inputs = batch(4), outputs;
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  ASSERT_TRUE(session->optimizerStep()); // the device wrote the parameters
  Module &module = session->module();
  Parameter &param = *module.parameters()[0];
  float *onDevice = deviceValues(*session, ArgumentRole::Parameter, 0);
  ASSERT_TRUE(onDevice);
  onDevice[0] = 7.0f;

  // UpdateParameter: the host's values replace the device's older ones...
  Tensor values = Tensor::zeros(param.dtype, param.data.shape());
  values.data<float>()[0] = -1.0f;
  ASSERT_TRUE(param.copyFrom(values));
  ASSERT_TRUE(state.synchronizeHost());
  EXPECT_EQ(param.data.data<float>()[0], -1.0f);
  // ...and go to the device at the next step (this parameter only).
  size_t uploaded = steps.counters().stateBytesUploaded;
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  EXPECT_EQ(steps.counters().stateBytesUploaded,
            uploaded + param.data.byteSize());
  EXPECT_EQ(onDevice[0], -1.0f);

  // CopyBufferToParameters likewise, for every trainable parameter.
  Tensor flat =
      Tensor::zeros(DataType::Float, {module.getParametersSize(true)});
  flat.data<float>()[0] = 5.0f;
  ASSERT_TRUE(module.copyBufferToParameters(flat, true));
  uploaded = steps.counters().stateBytesUploaded;
  ASSERT_TRUE(session->trainStep(inputs, outputs));
  EXPECT_EQ(steps.counters().stateBytesUploaded,
            uploaded + parameterBytes(true));
  EXPECT_EQ(onDevice[0], 5.0f);
}

TEST_F(DeviceSessionTest, TheSessionsEndCopiesTheStateBack) {
  {
    auto session = open(state);
    ASSERT_TRUE(session);
    std::vector<Tensor> inputs = batch(2), outputs;
    ASSERT_TRUE(session->trainStep(inputs, outputs));
    ASSERT_TRUE(session->optimizerStep());
    float *onDevice = deviceValues(*session, ArgumentRole::SecondMoment, 0);
    ASSERT_TRUE(onDevice);
    onDevice[3] = 0.5f;
  }
  // (Parameter 0 in the model's order, not the state's file order.)
  const std::string &name = model->parameters()[0].name;
  auto &moments =
      state.findOptimizerGroup("group0")->parameterStates[name].momentums;
  EXPECT_EQ(moments["momentum1"].data<float>()[3], 0.5f) << name;
  EXPECT_EQ(state.sessions.deviceMirror, nullptr);
  EXPECT_EQ(state.sessions.count, 0);
  EXPECT_EQ(mock.liveBytes(), 0) << "device memory left after the session";
  EXPECT_EQ(mock.contextRefs(), 0);
}

TEST_F(DeviceSessionTest, ASecondSessionOnTheStateIsRefused) {
  auto session = open(state);
  ASSERT_TRUE(session);
  auto spec = cuda::parseDeviceSpec("cuda");
  auto second = TrainingSession::create(state, model, *spec);
  ASSERT_FALSE(second);
  EXPECT_NE(second.getStatus().message().find(
                "used by a training session on a device"),
            std::string::npos)
      << second.getStatus().message();
  session.reset();

  // A state a CPU session uses cannot go to a device either.
  auto cpuModel =
      CompiledModel::load(std::string(ODT_E2E_MODELS_DIR) + "/ort_mlp");
  ASSERT_TRUE(cpuModel) << cpuModel.getStatus().message();
  auto onCpu = TrainingSession::create(state, cpuModel.take());
  ASSERT_TRUE(onCpu) << onCpu.getStatus().message();
  auto onDevice = TrainingSession::create(state, model, *spec);
  ASSERT_FALSE(onDevice);
  EXPECT_NE(
      onDevice.getStatus().message().find("used by another training session"),
      std::string::npos)
      << onDevice.getStatus().message();
}

TEST_F(DeviceSessionTest, ADeviceWithoutMemoryFailsTheStepClearly) {
  mock.set("memory", 4096);
  auto session = open(state);
  ASSERT_TRUE(session);
  std::vector<Tensor> inputs = batch(4), outputs;
  Status status = session->trainStep(inputs, outputs);
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("TrainStep"), std::string::npos)
      << status.message();
  EXPECT_EQ(logLines("launch ").size(), 0u);
}

} // namespace

// A batch the caller keeps in the device's memory: copied on the device
// into the step's input buffer at every call, ahead of the step (the graph
// holds only that buffer's address, so the caller may pass another
// allocation next time); only the labels and the lazy-reset flag come from
// the host. The same shapes from host memory are another step, with a graph
// of its own.
TEST_F(DeviceSessionTest, InputsInDeviceMemoryAreCopiedOnTheDevice) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  size_t bytes = 4 * 784 * sizeof(float);
  void *first = callerMemory(bytes), *second = callerMemory(bytes);
  ASSERT_TRUE(first && second);
  std::vector<Tensor> inputs = batch(4), outputs;
  for (int call = 0; call < 3; ++call) {
    inputs[0] = Tensor::deviceView(DataType::Float, {4, 784},
                                   call < 2 ? first : second, 0);
    size_t mark = logLength();
    ASSERT_TRUE(session->trainStep(inputs, outputs)) << "call " << call;
    // The copy on the device comes before the step's first launch (or its
    // graph's): the first call also uploads the state.
    std::vector<std::string> events = logLines("", mark);
    auto copy = std::find(events.begin(), events.end(),
                          "copy on device " + std::to_string(bytes));
    auto launch = std::find_if(events.begin(), events.end(), [](auto &e) {
      return e.compare(0, 6, "launch") == 0 || e == "graph launch";
    });
    EXPECT_TRUE(copy < launch) << "call " << call;
    EXPECT_EQ(logLines("copy on device", mark).size(), 1u) << "call " << call;
    if (call > 0)
      EXPECT_EQ(logLines("copy to device", mark).size(), 2u) << "call " << call;
  }
  EXPECT_EQ(steps.counters().eagerRuns, 1u);
  EXPECT_EQ(steps.counters().graphCaptures, 1u);
  EXPECT_EQ(steps.counters().graphReplays, 2u);

  std::vector<Tensor> hosted = batch(4);
  size_t mark = logLength();
  ASSERT_TRUE(session->trainStep(hosted, outputs));
  EXPECT_EQ(steps.counters().eagerRuns, 2u);
  EXPECT_EQ(logLines("copy on device", mark).size(), 0u);
  EXPECT_EQ(logLines("copy to device", mark).size(), 3u);
}

// What a session cannot take from device memory, each refused before the
// step runs, with the input named.
TEST_F(DeviceSessionTest, DeviceInputsItCannotTakeAreRefused) {
  auto session = open(state);
  ASSERT_TRUE(session);
  const cuda::DeviceSteps &steps = *session->module().deviceSteps();
  void *address = callerMemory(4 * 784 * sizeof(float));
  ASSERT_TRUE(address);
  std::vector<Tensor> outputs;
  auto refusal = [&](std::vector<Tensor> inputs) {
    Status status = session->trainStep(inputs, outputs);
    EXPECT_FALSE(status);
    return status.message();
  };

  std::vector<Tensor> inputs = batch(4);
  inputs[1] = Tensor::deviceView(DataType::Int32, {4}, address, 0);
  std::string message = refusal(inputs);
  EXPECT_NE(message.find("input 'labels'"), std::string::npos) << message;
  EXPECT_NE(message.find("checked on the host"), std::string::npos) << message;

  inputs = batch(4);
  inputs[0] = Tensor::deviceView(DataType::Float, {4, 784}, address, 1);
  message = refusal(inputs);
  EXPECT_NE(message.find("cuda:1"), std::string::npos) << message;
  EXPECT_NE(message.find("the session runs on cuda:0"), std::string::npos)
      << message;

  std::vector<float> host(4 * 784);
  inputs[0] = Tensor::deviceView(DataType::Float, {4, 784}, host.data(), 0);
  message = refusal(inputs);
  EXPECT_NE(message.find("is not CUDA device memory"), std::string::npos)
      << message;
  EXPECT_NE(message.find("CUDA_ERROR_INVALID_VALUE"), std::string::npos)
      << message;

  inputs = batch(8);
  inputs[0] = Tensor::deviceView(DataType::Float, {8, 784}, address, 0);
  message = refusal(inputs);
  EXPECT_NE(message.find("input 'input-0'"), std::string::npos) << message;
  EXPECT_NE(message.find("12544 bytes of its allocation, 25088 are needed"),
            std::string::npos)
      << message;
  EXPECT_EQ(steps.counters().eagerRuns, 0u);
  EXPECT_EQ(logLines("launch").size(), 0u);

  // A session on the CPU: the model's CPU build over another state.
  auto cpuModel =
      CompiledModel::load(std::string(ODT_E2E_MODELS_DIR) + "/ort_mlp");
  ASSERT_TRUE(cpuModel) << cpuModel.getStatus().message();
  auto read = loadCheckpoint(std::string(ODT_SHARED_DIR) +
                             "/conformance/ort/training_api/checkpoint.ckpt");
  ASSERT_TRUE(read);
  CheckpointState cpuState = read.take();
  auto cpu =
      TrainingSession::create(cpuState, cpuModel.take(), cuda::DeviceSpec());
  ASSERT_TRUE(cpu) << cpu.getStatus().message();
  inputs = batch(4);
  inputs[0] = Tensor::deviceView(DataType::Float, {4, 784}, address, 0);
  Status status = (*cpu)->trainStep(inputs, outputs);
  EXPECT_FALSE(status);
  EXPECT_NE(status.message().find("runs on the CPU"), std::string::npos)
      << status.message();
}
