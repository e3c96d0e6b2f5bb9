// The runtime's CUDA driver layer without a GPU: a missing driver, a file
// that is not one, the CUDA toolkit's stub libcuda (what a machine with the
// toolkit but no NVIDIA driver has) and an old driver each give a clear
// error; against the mock driver of test/runtime/mock_cuda: device
// selection, the arena's out-of-memory error, copies, kernels loaded from a
// PTX image, a step captured as one graph (nothing runs while capturing; a
// replay runs the captured work in order) and everything released when the
// device goes.

#include "CudaDriver.h"
#include "mock_cuda/MockCudaControl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

using odt::cuda::Device;
using odt::cuda::DeviceSpec;
using odt::cuda::Driver;
using ::testing::HasSubstr;

namespace {

class MockCudaTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(mock.load(ODT_MOCK_CUDA_DRIVER, error)) << error;
    mock.reset();
  }

  std::unique_ptr<Device> open(const std::string &spec) {
    auto parsed = odt::cuda::parseDeviceSpec(spec);
    EXPECT_TRUE(parsed) << parsed.getStatus().message();
    auto device = Device::open(*parsed, ODT_MOCK_CUDA_DRIVER);
    EXPECT_TRUE(device) << device.getStatus().message();
    return device ? device.take() : nullptr;
  }

  std::string openError(const std::string &spec) {
    auto device =
        Device::open(*odt::cuda::parseDeviceSpec(spec), ODT_MOCK_CUDA_DRIVER);
    EXPECT_FALSE(device);
    return device ? "" : device.getStatus().message();
  }

  /// The events logged since `mark` (a length of the log taken earlier).
  std::string eventsSince(size_t mark) {
    return std::string(mock.log()).substr(mark);
  }

  odt::test::MockCudaControl mock;
};

const char *kPtx = "//\n// odt PTX for sm_90\n.version 8.0\n"
                   ".visible .entry step_kernel_0(\n)\n{\n}\n"
                   ".visible .entry step_kernel_1(\n)\n{\n}\n";

} // namespace

TEST(CudaDeviceSpecTest, Parses) {
  auto cpu = odt::cuda::parseDeviceSpec("cpu");
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->kind, DeviceSpec::Kind::CPU);
  auto cuda = odt::cuda::parseDeviceSpec("cuda");
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->kind, DeviceSpec::Kind::CUDA);
  EXPECT_EQ(cuda->ordinal, 0);
  auto third = odt::cuda::parseDeviceSpec("cuda:2");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->ordinal, 2);
  EXPECT_EQ(third->text(), "cuda:2");
  for (const char *bad : {"", "gpu", "CUDA", "cuda:", "cuda:-1", "cuda:x",
                          "cuda:1x", "cuda:99999", "cuda0", " cuda"}) {
    auto spec = odt::cuda::parseDeviceSpec(bad);
    ASSERT_FALSE(spec) << bad;
    EXPECT_THAT(spec.getStatus().message(),
                HasSubstr(std::string("unknown device '") + bad + "'"));
  }
}

TEST(CudaDriverTest, MissingDriverIsAClearError) {
  auto driver = Driver::load("/nonexistent/odt/libcuda.so.1");
  ASSERT_FALSE(driver);
  EXPECT_THAT(driver.getStatus().message(),
              HasSubstr("could not load the CUDA driver "
                        "'/nonexistent/odt/libcuda.so.1'"));
  EXPECT_THAT(driver.getStatus().message(),
              HasSubstr("no NVIDIA driver is installed"));
}

TEST(CudaDriverTest, ALibraryThatIsNotADriverIsRefused) {
  auto driver = Driver::load("libm.so.6");
  ASSERT_FALSE(driver);
  EXPECT_THAT(driver.getStatus().message(),
              HasSubstr("'libm.so.6' is not a CUDA driver"));
}

TEST(CudaDriverTest, ToolkitStubIsAClearError) {
  if (std::strlen(ODT_CUDA_STUB_DRIVER) == 0)
    GTEST_SKIP() << "SKIPPED: no CUDA toolkit stub libcuda on this machine "
                    "(the toolkit is not installed)";
  auto device =
      Device::open(*odt::cuda::parseDeviceSpec("cuda"), ODT_CUDA_STUB_DRIVER);
  ASSERT_FALSE(device);
  EXPECT_THAT(device.getStatus().message(),
              HasSubstr("CUDA_ERROR_STUB_LIBRARY"));
  EXPECT_THAT(device.getStatus().message(),
              HasSubstr("no NVIDIA driver is installed on this machine"));
}

TEST_F(MockCudaTest, OpensTheRequestedDevice) {
  mock.set("devices", 2);
  mock.set("major", 8);
  mock.set("minor", 7);
  auto device = open("cuda:1");
  ASSERT_TRUE(device);
  EXPECT_EQ(device->ordinal(), 1);
  EXPECT_EQ(device->name(), "odt mock GPU 1");
  EXPECT_EQ(device->chip(), "sm_87");
  EXPECT_EQ(mock.contextRefs(), 1);
  // Entry points are resolved by their unsuffixed names at the pinned API
  // version (the driver picks cuMemAlloc_v2 for "cuMemAlloc" at 12000).
  EXPECT_THAT(mock.log(), HasSubstr("resolve cuMemAlloc 12000"));
  EXPECT_THAT(mock.log(), HasSubstr("resolve cuStreamBeginCapture 12000"));
  device.reset();
  EXPECT_EQ(mock.contextRefs(), 0);
}

TEST_F(MockCudaTest, DeviceSelectionErrors) {
  EXPECT_THAT(openError("cuda:1"),
              HasSubstr("cuda:1 does not exist: the driver sees 1 device "
                        "(cuda:0 to cuda:0)"));
  mock.set("devices", 0);
  EXPECT_THAT(openError("cuda"), HasSubstr("no CUDA device"));
  mock.set("devices", 1);
  mock.set("init_result", 100);
  EXPECT_THAT(openError("cuda"), HasSubstr("cuInit: CUDA_ERROR_NO_DEVICE"));
  mock.set("init_result", 0);
  mock.set("driver_version", 11080);
  EXPECT_THAT(openError("cuda"),
              HasSubstr("supports CUDA 11.8; odt needs 12.1 or newer (its "
                        "kernels are PTX ISA 8.1)"));
  // 12.0 has every entry point odt resolves, but not PTX ISA 8.1.
  mock.set("driver_version", 12000);
  EXPECT_THAT(openError("cuda"),
              HasSubstr("supports CUDA 12.0; odt needs 12.1 or newer"));
  mock.set("driver_version", 12010);
  EXPECT_NE(open("cuda"), nullptr);
  EXPECT_EQ(mock.contextRefs(), 0);
}

TEST_F(MockCudaTest, ArenaOutOfMemoryIsAClearError) {
  mock.set("memory", 1 << 20);
  auto device = open("cuda");
  ASSERT_TRUE(device);
  auto arena = device->allocate(1 << 19, "the step arena");
  ASSERT_TRUE(arena) << arena.getStatus().message();
  auto tooBig = device->allocate(1 << 20, "the parameters");
  ASSERT_FALSE(tooBig);
  EXPECT_THAT(tooBig.getStatus().message(),
              HasSubstr("allocating 1048576 bytes on odt mock GPU 0 (cuda:0) "
                        "for the parameters: CUDA_ERROR_OUT_OF_MEMORY (out of "
                        "memory)"));
  EXPECT_EQ(mock.liveBytes(), 1 << 19);
  device.reset();
  EXPECT_EQ(mock.liveBytes(), 0);
}

TEST_F(MockCudaTest, CopiesRoundTrip) {
  auto device = open("cuda");
  ASSERT_TRUE(device);
  auto buffer = device->allocate(64 * sizeof(float), "values");
  ASSERT_TRUE(buffer);
  std::vector<float> values(64), back(64, -1.0f);
  for (int i = 0; i < 64; ++i)
    values[i] = 0.5f * i - 3.0f;
  ASSERT_TRUE(device->copyToDevice(buffer->address, values.data(),
                                   values.size() * sizeof(float)));
  ASSERT_TRUE(device->copyToHost(back.data(), buffer->address,
                                 back.size() * sizeof(float)));
  EXPECT_EQ(values, back);
  // Past the end of the allocation: the driver's error, named.
  auto status = device->copyToHost(back.data(), buffer->address + 4,
                                   back.size() * sizeof(float));
  ASSERT_FALSE(status);
  EXPECT_THAT(status.message(), HasSubstr("copying 256 bytes from the device: "
                                          "CUDA_ERROR_INVALID_VALUE"));
}

TEST_F(MockCudaTest, KernelImageErrorsNameTheKernel) {
  auto device = open("cuda");
  ASSERT_TRUE(device);
  auto missing = device->loadKernels(kPtx, {"step_kernel_0", "step_kernel_7"});
  ASSERT_FALSE(missing);
  EXPECT_THAT(
      missing.getStatus().message(),
      HasSubstr("finding kernel 'step_kernel_7': CUDA_ERROR_NOT_FOUND"));
  auto garbage = device->loadKernels("\x7f"
                                     "ELF garbage",
                                     {"step_kernel_0"});
  ASSERT_FALSE(garbage);
  EXPECT_THAT(garbage.getStatus().message(),
              HasSubstr("loading the kernels on odt mock GPU 0 (sm_90): "
                        "CUDA_ERROR_INVALID_IMAGE"));
}

TEST_F(MockCudaTest, StepCapturedOnceAndReplayedInOrder) {
  auto device = open("cuda");
  ASSERT_TRUE(device);
  auto kernels = device->loadKernels(kPtx, {"step_kernel_0", "step_kernel_1"});
  ASSERT_TRUE(kernels) << kernels.getStatus().message();
  auto input = device->allocate(4 * sizeof(float), "the input");
  ASSERT_TRUE(input);
  float staged[4] = {1, 2, 3, 4};
  odt::cuda::DevicePtr address = input->address;
  void *parameters[] = {&address};

  auto recordStep = [&]() -> odt::Status {
    if (auto status =
            device->copyToDevice(input->address, staged, sizeof(staged));
        !status)
      return status;
    for (int k = 0; k < 2; ++k) {
      odt::cuda::KernelLaunch launch;
      launch.function = (*kernels)[k];
      launch.grid[0] = 3 + k;
      launch.block[0] = 256;
      launch.parameters.assign(parameters, parameters + 1);
      if (auto status = device->launch(launch); !status)
        return status;
    }
    return odt::Status::ok();
  };
  size_t mark = std::strlen(mock.log());
  auto graph = device->captureGraph(recordStep);
  ASSERT_TRUE(graph) << graph.getStatus().message();
  // Captured, not run: nothing reached the device between begin and end.
  EXPECT_EQ(eventsSince(mark), "capture begin\ncapture end 3 nodes\n");

  // A replay runs the copy and both kernels, in the captured order; the
  // copy reads the host values at replay time (the staging buffer's role).
  staged[0] = 42;
  for (int replay = 0; replay < 2; ++replay) {
    mark = std::strlen(mock.log());
    ASSERT_TRUE(device->replayGraph(*graph));
    EXPECT_EQ(eventsSince(mark),
              "graph launch\ncopy to device 16\n"
              "launch step_kernel_0 grid 3x1x1 block 256x1x1 shared 0\n"
              "launch step_kernel_1 grid 4x1x1 block 256x1x1 shared 0\n");
  }
  float back[4] = {};
  ASSERT_TRUE(device->copyToHost(back, input->address, sizeof(back)));
  EXPECT_EQ(back[0], 42);
  EXPECT_EQ(back[3], 4);
}

TEST_F(MockCudaTest, FailedCaptureLeavesNoGraphAndAUsableStream) {
  auto device = open("cuda");
  ASSERT_TRUE(device);
  auto status = device->captureGraph(
      [] { return odt::Status::error("the step refused"); });
  ASSERT_FALSE(status);
  EXPECT_THAT(status.getStatus().message(),
              HasSubstr("capturing the step's graph: the step refused"));
  auto replay = device->replayGraph(odt::cuda::StepGraph());
  ASSERT_FALSE(replay);
  EXPECT_THAT(replay.message(), HasSubstr("no step graph was captured"));
  // The capture was ended: synchronizing (refused while capturing) works.
  EXPECT_TRUE(device->synchronize());
  // Synchronizing inside a capture is the driver's error, passed on.
  auto inside = device->captureGraph([&] { return device->synchronize(); });
  ASSERT_FALSE(inside);
  EXPECT_THAT(inside.getStatus().message(),
              HasSubstr("cuStreamSynchronize: "
                        "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"));
  EXPECT_TRUE(device->synchronize());
}
