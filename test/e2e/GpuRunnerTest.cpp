// A GPU build's host code run on the mock CUDA driver (test/runtime/
// mock_cuda: device memory is host memory, launches are recorded, kernels do
// not run). ORT's MLP compiled with --gpu-arch=sm_80,sm_90 loads the sm_90
// image on the mock's sm_90 device, and each step's host code allocates its
// intermediates through the runner (device memory, all freed by the step's
// end, reused by the next) and launches each of the step's kernels once,
// every launch with the parameter count of its kernel. What only a GPU
// shows (the kernels' results) is not checked here.

#include "CompiledModel.h"
#include "KernelRunner.h"
#include "mock_cuda/MockCudaControl.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

using namespace odt;
using odt::cuda::Device;
using odt::cuda::DeviceTensor;
using odt::cuda::KernelRunner;

namespace {

class GpuRunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(mock.load(ODT_MOCK_CUDA_DRIVER, error)) << error;
    mock.reset();
    auto loaded =
        CompiledModel::load(std::string(ODT_E2E_MODELS_DIR) + "/ort_mlp_gpu");
    ASSERT_TRUE(loaded) << loaded.getStatus().message();
    model = loaded.take();
    ASSERT_TRUE(model->isGPUBuild());
    openDevice();
  }

  /// The mock's device 0 (its chip as the mock is set) and a runner on it.
  void openDevice() {
    runner.reset();
    device.reset();
    auto spec = cuda::parseDeviceSpec("cuda:0");
    ASSERT_TRUE(spec);
    auto opened = Device::open(*spec, ODT_MOCK_CUDA_DRIVER);
    ASSERT_TRUE(opened) << opened.getStatus().message();
    device = opened.take();
    auto made = KernelRunner::create(*device, model);
    ASSERT_TRUE(made) << made.getStatus().message();
    runner = made.take();
  }

  /// A device buffer for every argument of `kind`, its symbolic dims
  /// (the batch) bound to `batch`.
  std::vector<DeviceTensor> deviceArguments(EntryKind kind, int64_t batch) {
    std::vector<DeviceTensor> arguments;
    for (const ArgumentSpec &argument : model->entryPoint(kind)->arguments) {
      DeviceTensor tensor;
      size_t bytes = dataTypeSize(argument.dtype);
      for (const DimSpec &dim : argument.dims) {
        tensor.shape.push_back(dim.size >= 0 ? dim.size : batch);
        bytes *= static_cast<size_t>(tensor.shape.back());
      }
      auto buffer = device->allocate(bytes ? bytes : 1, argument.name);
      EXPECT_TRUE(buffer) << buffer.getStatus().message();
      tensor.address = buffer ? buffer->address : 0;
      arguments.push_back(tensor);
    }
    return arguments;
  }

  std::vector<std::string> logLines(const std::string &prefix,
                                    size_t from = 0) {
    return mock.logLines(prefix, from);
  }
  size_t logLength() { return mock.logLength(); }

  /// The kernels of the table whose names start with `step` ("train_").
  size_t kernelsOf(const std::string &step) {
    size_t count = 0;
    for (const GPUKernelSpec &kernel : model->gpuKernels())
      count += kernel.name.compare(0, step.size(), step) == 0;
    return count;
  }

  void checkStep(EntryKind kind, const std::string &step, int64_t batch) {
    std::vector<DeviceTensor> arguments = deviceArguments(kind, batch);
    size_t before = logLength(), launchedBefore = runner->launches();
    Status status = runner->call(kind, arguments);
    ASSERT_TRUE(status.isOk()) << status.message();
    std::vector<std::string> launches = logLines("launch ", before);
    // The MLP's steps have no host loops: each kernel launches once.
    ASSERT_GT(kernelsOf(step), 0u);
    EXPECT_EQ(launches.size(), kernelsOf(step));
    EXPECT_EQ(runner->launches() - launchedBefore, launches.size());
    std::map<std::string, int> seen;
    for (const std::string &launch : launches) {
      std::string name = launch.substr(7, launch.find(' ', 7) - 7);
      EXPECT_EQ(name.compare(0, step.size(), step), 0) << launch;
      EXPECT_EQ(++seen[name], 1) << name << " launched twice";
    }
    EXPECT_EQ(runner->bytesInUse(), 0u) << "intermediates left allocated";
    // The next call reuses the blocks the first one freed.
    size_t again = logLength();
    status = runner->call(kind, arguments);
    ASSERT_TRUE(status.isOk()) << status.message();
    EXPECT_EQ(logLines("alloc ", again).size(), 0u);
    EXPECT_EQ(logLines("launch ", again).size(), launches.size());
  }

  odt::test::MockCudaControl mock;
  std::shared_ptr<CompiledModel> model;
  std::unique_ptr<Device> device;
  std::unique_ptr<KernelRunner> runner;
};

TEST_F(GpuRunnerTest, LoadsTheImageForTheDevicesChip) {
  EXPECT_EQ(model->gpuChips(), "sm_80, sm_90");
  EXPECT_EQ(selectGPUImage(*model, "sm_90")->chip, "sm_90");
  EXPECT_EQ(selectGPUImage(*model, "sm_89")->chip, "sm_80");
  EXPECT_EQ(selectGPUImage(*model, "sm_75"), nullptr);
  EXPECT_EQ(logLines("module load").size(), 1u);
}

TEST_F(GpuRunnerTest, LoadsTheCubinOfItsChipElseThePTX) {
  // (The build's cubins come from ptxas, found where odt-compile looks.)
  if (selectGPUImage(*model, "sm_90")->cubin.empty())
    GTEST_SKIP() << "the model was compiled without ptxas (no CUDA toolkit "
                    "here): no cubin to load";
  // The sm_90 device: the sm_90 cubin, nothing compiled from PTX.
  EXPECT_TRUE(runner->loadedCubin());
  EXPECT_EQ(logLines("module load cubin").size(), 1u);
  // An sm_89 device: no cubin of its chip, so the sm_80 PTX (a cubin for
  // sm_80 is not loaded on another chip).
  runner.reset();
  device.reset();
  mock.reset();
  mock.set("major", 8);
  mock.set("minor", 9);
  openDevice();
  EXPECT_FALSE(runner->loadedCubin());
  EXPECT_EQ(logLines("module load cubin").size(), 0u);
  EXPECT_EQ(logLines("module load").size(), 1u);
  checkStep(EntryKind::Train, "train_", 2);
}

TEST_F(GpuRunnerTest, TrainStepLaunchesEachOfItsKernels) {
  checkStep(EntryKind::Train, "train_", 4);
}

TEST_F(GpuRunnerTest, EvalStepLaunchesEachOfItsKernels) {
  checkStep(EntryKind::Eval, "eval_", 3);
}

TEST_F(GpuRunnerTest, OptimizerStepLaunchesEachOfItsKernels) {
  checkStep(EntryKind::Optimizer, "optimizer_", 1);
}

TEST_F(GpuRunnerTest, LaunchesAreCheckedAgainstTheKernelTable) {
  const int64_t grid[3] = {2, 1, 1}, block[3] = {256, 1, 1};
  int32_t parameters = model->gpuKernels()[0].parameters;
  std::vector<void *> addresses(parameters + 1, nullptr);
  Status status =
      runner->launch(0, grid, block, 0, addresses.data(), parameters + 1);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("kernel " + model->gpuKernels()[0].name +
                                  " takes " + std::to_string(parameters) +
                                  " parameters, the model's launch passed " +
                                  std::to_string(parameters + 1)),
            std::string::npos)
      << status.message();
  status = runner->launch(static_cast<int32_t>(model->gpuKernels().size()),
                          grid, block, 0, addresses.data(), 0);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("the model launched kernel"),
            std::string::npos);
  const int64_t tooLarge[3] = {int64_t(1) << 32, 1, 1};
  status = runner->launch(0, tooLarge, block, 0, addresses.data(), parameters);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("beyond CUDA's limits"), std::string::npos);
  const int64_t wideBlock[3] = {2048, 1, 1};
  status = runner->launch(0, grid, wideBlock, 0, addresses.data(), parameters);
  EXPECT_FALSE(status.isOk());
  // An empty grid (a batch of 0) launches nothing and is no error.
  const int64_t empty[3] = {0, 1, 1};
  size_t before = runner->launches();
  EXPECT_TRUE(
      runner->launch(0, empty, block, 0, addresses.data(), parameters).isOk());
  EXPECT_EQ(runner->launches(), before);
}

TEST_F(GpuRunnerTest, WrongArgumentsAreAnError) {
  std::vector<DeviceTensor> arguments = deviceArguments(EntryKind::Train, 4);
  arguments.pop_back();
  Status status = runner->call(EntryKind::Train, arguments);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("buffers, given"), std::string::npos);
  arguments = deviceArguments(EntryKind::Train, 4);
  arguments[0].shape.push_back(1);
  status = runner->call(EntryKind::Train, arguments);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("must have rank"), std::string::npos);
  // A static dim that is not the spec's, and a batch that differs between
  // the input and the labels: the kernels would index past the buffers.
  for (size_t wrong : {size_t(0), size_t(1)}) {
    arguments = deviceArguments(EntryKind::Train, 4);
    const ArgumentSpec &spec =
        model->entryPoint(EntryKind::Train)->arguments[wrong];
    size_t last = arguments[wrong].shape.size() - 1;
    arguments[wrong].shape[wrong == 0 ? last : 0] += 1;
    status = runner->call(EntryKind::Train, arguments);
    ASSERT_FALSE(status.isOk()) << spec.name;
    EXPECT_NE(status.message().find("argument '" + spec.name + "' has shape"),
              std::string::npos)
        << status.message();
  }
  EXPECT_EQ(runner->launches(), 0u);
}

TEST_F(GpuRunnerTest, AnOutOfMemoryDeviceFailsTheStep) {
  std::vector<DeviceTensor> arguments = deviceArguments(EntryKind::Train, 4);
  // Leave the mock device (1 GiB) too little room for the step's arena.
  size_t left = (size_t(1) << 30) - static_cast<size_t>(mock.liveBytes());
  auto filler = device->allocate(left - 1024, "filler");
  ASSERT_TRUE(filler) << filler.getStatus().message();
  size_t before = logLength();
  Status status = runner->call(EntryKind::Train, arguments);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << status.message();
  // Nothing is launched after the failure... and the arena was the first
  // allocation, so nothing at all.
  EXPECT_EQ(logLines("launch ", before).size(), 0u);
}

} // namespace
