// The CUDA driver loaded with dlopen; see CudaDriver.h.

#include "CudaDriver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace odt {
namespace cuda {

namespace {

// The driver's codes and enumerators odt uses (cuda.h's values; the header
// is not included so that the runtime builds without the toolkit).
constexpr Result_t kSuccess = 0;
constexpr Result_t kStubLibrary = 34;
constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr unsigned kStreamNonBlocking = 1;
// Relaxed: cuMemAlloc is allowed while a step is captured (a step's first
// allocations of a size happen at its capture, never at its replays).
constexpr int kCaptureModeRelaxed = 2;

/// cuGetProcAddress_v2 (CUDA 12.0): the one entry point taken with dlsym.
using GetProcAddressFn = Result_t (*)(const char *symbol, void **function,
                                      int apiVersion, uint64_t flags,
                                      int *symbolStatus);

/// Names of the errors a driver may fail to describe itself: the toolkit's
/// stub answers every call, cuGetErrorName included, with code 34.
const char *fallbackErrorName(Result_t code) {
  switch (code) {
  case 1:
    return "CUDA_ERROR_INVALID_VALUE";
  case 2:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case 3:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case kStubLibrary:
    return "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda, not a "
           "driver: no NVIDIA driver is installed on this machine)";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  case 101:
    return "CUDA_ERROR_INVALID_DEVICE";
  case 200:
    return "CUDA_ERROR_INVALID_IMAGE";
  case 209:
    return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case 218:
    return "CUDA_ERROR_INVALID_PTX";
  case 222:
    return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case 500:
    return "CUDA_ERROR_NOT_FOUND";
  default:
    return nullptr;
  }
}

std::string versionText(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

} // namespace

std::string Driver::describe(Result_t code) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (functions.cuGetErrorName &&
      functions.cuGetErrorName(code, &name) == kSuccess && name) {
    std::string result = name;
    if (functions.cuGetErrorString &&
        functions.cuGetErrorString(code, &text) == kSuccess && text)
      result += std::string(" (") + text + ")";
    return result;
  }
  if (const char *known = fallbackErrorName(code))
    return known;
  return "CUDA error " + std::to_string(code);
}

Status Driver::check(Result_t code, const std::string &what) const {
  if (code == kSuccess)
    return Status::ok();
  return Status::error(what + ": " + describe(code));
}

Result<const Driver *> Driver::load(const std::string &path) {
  std::string file = path;
  if (file.empty()) {
    const char *chosen = std::getenv("ODT_CUDA_DRIVER");
    file = chosen && *chosen ? chosen : "libcuda.so.1";
  }
  // Loaded drivers stay for the process: a driver library cannot be closed.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Driver>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(file);
  if (found != loaded.end())
    return static_cast<const Driver *>(found->second.get());

  void *library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return Status::error(
        "could not load the CUDA driver '" + file + "' (" +
        (why ? why : "unknown reason") +
        "): no NVIDIA driver is installed here, or ODT_CUDA_DRIVER names "
        "the wrong file");
  }
  auto getProcAddress =
      reinterpret_cast<GetProcAddressFn>(dlsym(library, "cuGetProcAddress_v2"));
  if (!getProcAddress) {
    dlclose(library);
    return Status::error("'" + file +
                         "' is not a CUDA driver of version 12.0 or newer (it "
                         "has no cuGetProcAddress_v2)");
  }
  std::unique_ptr<Driver> driver(new Driver());
  driver->libraryPath = file;
  // Resolve the names without their _vN suffix: the pinned version picks
  // the signature the table declares.
  struct Entry {
    const char *name;
    void **slot;
  };
  DriverFunctions &functions = driver->functions;
  const Entry entries[] = {
#define ODT_CUDA_ENTRY(name, ...)                                              \
  {#name, reinterpret_cast<void **>(&functions.name)},
      ODT_CUDA_DRIVER_FUNCTIONS(ODT_CUDA_ENTRY)
#undef ODT_CUDA_ENTRY
  };
  for (const Entry &entry : entries) {
    int symbolStatus = 0;
    Result_t code = getProcAddress(entry.name, entry.slot, kPinnedApiVersion, 0,
                                   &symbolStatus);
    if (code != kSuccess || !*entry.slot) {
      Status status =
          code != kSuccess
              ? driver->check(code, "the CUDA driver '" + file +
                                        "' could not resolve " + entry.name)
              : Status::error("the CUDA driver '" + file + "' lacks " +
                              entry.name + " at API version " +
                              versionText(kPinnedApiVersion));
      dlclose(library);
      return status;
    }
  }
  const Driver *result = driver.get();
  loaded.emplace(file, std::move(driver));
  return result;
}

std::string DeviceSpec::text() const {
  return kind == Kind::CPU ? "cpu" : "cuda:" + std::to_string(ordinal);
}

Result<DeviceSpec> parseDeviceSpec(const std::string &text) {
  DeviceSpec spec;
  if (text == "cpu")
    return spec;
  spec.kind = DeviceSpec::Kind::CUDA;
  if (text == "cuda")
    return spec;
  const std::string prefix = "cuda:";
  std::string digits = text.substr(0, prefix.size()) == prefix
                           ? text.substr(prefix.size())
                           : std::string();
  bool valid = !digits.empty() && digits.size() <= 4 &&
               digits.find_first_not_of("0123456789") == std::string::npos;
  if (!valid)
    return Status::error("unknown device '" + text +
                         "': expected cpu, cuda or cuda:N (N the device's "
                         "number, from 0)");
  spec.ordinal = std::stoi(digits);
  return spec;
}

Result<std::unique_ptr<Device>> Device::open(const DeviceSpec &spec,
                                             const std::string &driverPath) {
  if (spec.kind != DeviceSpec::Kind::CUDA)
    return Status::error("device " + spec.text() + " is not a CUDA device");
  Result<const Driver *> driver = Driver::load(driverPath);
  if (!driver)
    return driver.getStatus();
  const DriverFunctions &api = (*driver)->api();
  std::unique_ptr<Device> device(new Device(**driver));
  device->deviceOrdinal = spec.ordinal;
  // cuInit may be called again and again; a driver whose devices went away
  // since the last session says so here.
  if (Status status = device->call(api.cuInit(0), "cuInit"); !status)
    return status;
  int version = 0;
  if (Status status =
          device->call(api.cuDriverGetVersion(&version), "cuDriverGetVersion");
      !status)
    return status;
  if (version < kMinimumDriverVersion)
    return Status::error("the CUDA driver '" + (*driver)->path() +
                         "' supports CUDA " + versionText(version) +
                         "; odt needs " + versionText(kMinimumDriverVersion) +
                         " or newer (its kernels are PTX ISA 8.1)");
  int count = 0;
  if (Status status =
          device->call(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
      !status)
    return status;
  if (count == 0)
    return Status::error("no CUDA device: the driver sees none");
  if (spec.ordinal >= count)
    return Status::error(spec.text() + " does not exist: the driver sees " +
                         std::to_string(count) + " device" +
                         (count == 1 ? "" : "s") +
                         " (cuda:0 to cuda:" + std::to_string(count - 1) + ")");
  const std::string where = " (" + spec.text() + ")";
  if (Status status =
          device->call(api.cuDeviceGet(&device->device, spec.ordinal),
                       "cuDeviceGet" + where);
      !status)
    return status;
  char name[256] = {};
  if (Status status = device->call(
          api.cuDeviceGetName(name, sizeof(name) - 1, device->device),
          "cuDeviceGetName" + where);
      !status)
    return status;
  device->deviceName = name;
  if (Status status = device->call(
          api.cuDeviceGetAttribute(
              &device->major, kAttributeComputeCapabilityMajor, device->device),
          "cuDeviceGetAttribute" + where);
      !status)
    return status;
  if (Status status = device->call(
          api.cuDeviceGetAttribute(
              &device->minor, kAttributeComputeCapabilityMinor, device->device),
          "cuDeviceGetAttribute" + where);
      !status)
    return status;
  // The primary context (shared with any other CUDA user in the process),
  // not a context of odt's own: cuCtxCreate's signature changed in CUDA 13.
  if (Status status = device->call(
          api.cuDevicePrimaryCtxRetain(&device->context, device->device),
          "cuDevicePrimaryCtxRetain" + where);
      !status)
    return status;
  if (Status status = device->call(api.cuCtxSetCurrent(device->context),
                                   "cuCtxSetCurrent" + where);
      !status)
    return status;
  if (Status status =
          device->call(api.cuStreamCreate(&device->stream, kStreamNonBlocking),
                       "cuStreamCreate" + where);
      !status)
    return status;
  return device;
}

Device::~Device() {
  const DriverFunctions &api = driver.api();
  if (!context)
    return;
  api.cuCtxSetCurrent(context);
  if (stream)
    api.cuStreamSynchronize(stream);
  for (StepGraph &graph : graphs) {
    api.cuGraphExecDestroy(graph.executable);
    api.cuGraphDestroy(graph.graph);
  }
  for (ModuleHandle module : modules)
    api.cuModuleUnload(module);
  for (const DeviceBuffer &buffer : buffers)
    api.cuMemFree(buffer.address);
  for (const PinnedBuffer &buffer : pinnedBuffers)
    api.cuMemFreeHost(buffer.address);
  if (stream)
    api.cuStreamDestroy(stream);
  api.cuDevicePrimaryCtxRelease(device);
}

std::string Device::chip() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

Result<DeviceBuffer> Device::allocate(size_t bytes,
                                      const std::string &purpose) {
  if (Status status = makeCurrent(); !status)
    return status;
  const DriverFunctions &api = driver.api();
  DeviceBuffer buffer;
  buffer.bytes = bytes;
  if (Status status = call(api.cuMemAlloc(&buffer.address, bytes),
                           "allocating " + std::to_string(bytes) +
                               " bytes on " + label() + " for " + purpose);
      !status)
    return status;
  buffers.push_back(buffer);
  return buffer;
}

Status Device::free(DevicePtr address) {
  auto it = std::find_if(
      buffers.begin(), buffers.end(),
      [&](const DeviceBuffer &buffer) { return buffer.address == address; });
  if (it == buffers.end())
    return Status::error("freeing a buffer " + label() + " did not allocate");
  ODT_RETURN_IF_ERROR(makeCurrent());
  const DriverFunctions &api = driver.api();
  ODT_RETURN_IF_ERROR(
      call(api.cuStreamSynchronize(stream), "waiting for the stream"));
  buffers.erase(it);
  return call(api.cuMemFree(address), "freeing device memory");
}

Result<PinnedBuffer> Device::allocatePinned(size_t bytes,
                                            const std::string &purpose) {
  if (Status status = makeCurrent(); !status)
    return status;
  PinnedBuffer buffer;
  buffer.bytes = bytes;
  if (Status status =
          call(driver.api().cuMemAllocHost(&buffer.address, bytes),
               "allocating " + std::to_string(bytes) +
                   " bytes of page-locked host memory for " + purpose);
      !status)
    return status;
  pinnedBuffers.push_back(buffer);
  return buffer;
}

Status Device::freePinned(void *address) {
  auto it = std::find_if(
      pinnedBuffers.begin(), pinnedBuffers.end(),
      [&](const PinnedBuffer &buffer) { return buffer.address == address; });
  if (it == pinnedBuffers.end())
    return Status::error("freeing page-locked memory " + label() +
                         " did not allocate");
  ODT_RETURN_IF_ERROR(synchronize());
  pinnedBuffers.erase(it);
  return call(driver.api().cuMemFreeHost(address),
              "freeing page-locked host memory");
}

Status Device::copyToDevice(DevicePtr to, const void *from, size_t bytes) {
  if (Status status = makeCurrent(); !status)
    return status;
  const DriverFunctions &api = driver.api();
  return call(api.cuMemcpyHtoDAsync(to, from, bytes, stream), [&] {
    return "copying " + std::to_string(bytes) + " bytes to the device";
  });
}

Status Device::copyToHost(void *to, DevicePtr from, size_t bytes) {
  if (Status status = makeCurrent(); !status)
    return status;
  ODT_RETURN_IF_ERROR(enqueueCopyToHost(to, from, bytes));
  return synchronize();
}

Status Device::enqueueCopyToHost(void *to, DevicePtr from, size_t bytes) {
  return call(driver.api().cuMemcpyDtoHAsync(to, from, bytes, stream), [&] {
    return "copying " + std::to_string(bytes) + " bytes from the device";
  });
}

Status Device::enqueueCopyOnDevice(DevicePtr to, DevicePtr from, size_t bytes) {
  return call(driver.api().cuMemcpyDtoDAsync(to, from, bytes, stream), [&] {
    return "copying " + std::to_string(bytes) + " bytes on the device";
  });
}

Status Device::checkOwnMemory(DevicePtr address, size_t bytes) const {
  // CUpointer_attribute's values (cuda.h).
  constexpr int kDeviceOrdinal = 9, kRangeStart = 11, kRangeSize = 12;
  ODT_RETURN_IF_ERROR(makeCurrent());
  const DriverFunctions &api = driver.api();
  auto where = [&] {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx",
                  static_cast<unsigned long long>(address));
    return std::string(text);
  };
  int ordinal = -1;
  if (Status status =
          call(api.cuPointerGetAttribute(&ordinal, kDeviceOrdinal, address),
               [&] { return where() + " is not CUDA device memory"; });
      !status)
    return status;
  if (ordinal != deviceOrdinal)
    return Status::error(where() + " is memory of cuda:" +
                         std::to_string(ordinal) + ", not of " + label());
  DevicePtr start = 0;
  size_t size = 0;
  ODT_RETURN_IF_ERROR(
      call(api.cuPointerGetAttribute(&start, kRangeStart, address),
           "cuPointerGetAttribute (the allocation's start)"));
  ODT_RETURN_IF_ERROR(
      call(api.cuPointerGetAttribute(&size, kRangeSize, address),
           "cuPointerGetAttribute (the allocation's size)"));
  if (address - start + bytes > size)
    return Status::error(
        where() + " holds " + std::to_string(size - (address - start)) +
        " bytes of its allocation, " + std::to_string(bytes) + " are needed");
  return Status::ok();
}

Status Device::synchronize() {
  return call(driver.api().cuStreamSynchronize(stream), "cuStreamSynchronize");
}

Result<std::vector<FunctionHandle>>
Device::loadKernels(const void *image, const std::vector<std::string> &names) {
  if (Status status = makeCurrent(); !status)
    return status;
  const DriverFunctions &api = driver.api();
  ModuleHandle module = nullptr;
  if (Status status =
          call(api.cuModuleLoadData(&module, image),
               "loading the kernels on " + name() + " (" + chip() + ")");
      !status)
    return status;
  modules.push_back(module);
  std::vector<FunctionHandle> functions;
  for (const std::string &kernel : names) {
    FunctionHandle function = nullptr;
    if (Status status =
            call(api.cuModuleGetFunction(&function, module, kernel.c_str()),
                 "finding kernel '" + kernel + "'");
        !status)
      return status;
    functions.push_back(function);
  }
  return functions;
}

Status Device::launch(const KernelLaunch &launch) {
  // cuLaunchKernel only reads the parameter array (its type is not const):
  // no copy, so a launch allocates nothing.
  void **parameters = launch.parameters.empty()
                          ? nullptr
                          : const_cast<void **>(launch.parameters.data());
  return call(driver.api().cuLaunchKernel(launch.function, launch.grid[0],
                                          launch.grid[1], launch.grid[2],
                                          launch.block[0], launch.block[1],
                                          launch.block[2], launch.sharedBytes,
                                          stream, parameters, nullptr),
              "cuLaunchKernel");
}

Status Device::makeCurrent() const {
  return call(driver.api().cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

std::string Device::label() const {
  return deviceName + " (" +
         DeviceSpec{DeviceSpec::Kind::CUDA, deviceOrdinal}.text() + ")";
}

Result<StepGraph> Device::captureGraph(const std::function<Status()> &record) {
  if (Status status = makeCurrent(); !status)
    return status;
  const DriverFunctions &api = driver.api();
  if (Status status =
          call(api.cuStreamBeginCapture(stream, kCaptureModeRelaxed),
               "cuStreamBeginCapture");
      !status)
    return status;
  Status recorded = record();
  // The capture ends whatever happened, so the stream is usable after.
  StepGraph captured;
  Result_t ended = api.cuStreamEndCapture(stream, &captured.graph);
  if (!recorded || ended != kSuccess) {
    if (captured.graph)
      api.cuGraphDestroy(captured.graph);
    return !recorded ? recorded.withContext("capturing the step's graph")
                     : call(ended, "cuStreamEndCapture");
  }
  if (Status status = call(api.cuGraphInstantiateWithFlags(&captured.executable,
                                                           captured.graph, 0),
                           "cuGraphInstantiateWithFlags");
      !status) {
    api.cuGraphDestroy(captured.graph);
    return status;
  }
  graphs.push_back(captured);
  return captured;
}

Status Device::replayGraph(const StepGraph &graph) {
  if (!graph.executable)
    return Status::error("no step graph was captured");
  return call(driver.api().cuGraphLaunch(graph.executable, stream),
              "cuGraphLaunch");
}

} // namespace cuda
} // namespace odt
