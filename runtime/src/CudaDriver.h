// The CUDA driver, loaded at run time. The runtime never links libcuda and
// includes no CUDA header: it builds for machines without the toolkit, and
// loading a model on a machine without a GPU never touches CUDA. Only a
// session asked to run on a `cuda` device opens the driver (dlopen of
// libcuda.so.1, or the file named by ODT_CUDA_DRIVER), and every entry point
// is resolved through cuGetProcAddress at a pinned API version, so the
// `_v2`-style renames of cuda.h never matter.
//
// Every call's failure comes back as a Status naming the call and the CUDA
// error ("cuMemAlloc of 1048576 bytes: CUDA_ERROR_OUT_OF_MEMORY (out of
// memory)").

#ifndef ODT_RUNTIME_CUDADRIVER_H
#define ODT_RUNTIME_CUDADRIVER_H

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace odt {
namespace cuda {

// The driver API's types as the driver's ABI defines them (cuda.h is not
// included): handles are opaque pointers, device addresses 64-bit integers.
using Result_t = int;
using DeviceHandle = int;
using DevicePtr = uint64_t;
struct OpaqueContext;
struct OpaqueModule;
struct OpaqueFunction;
struct OpaqueStream;
struct OpaqueGraph;
struct OpaqueGraphExec;
using ContextHandle = OpaqueContext *;
using ModuleHandle = OpaqueModule *;
using FunctionHandle = OpaqueFunction *;
using StreamHandle = OpaqueStream *;
using GraphHandle = OpaqueGraph *;
using GraphExecHandle = OpaqueGraphExec *;

/// The API version the entry points are resolved at (CUDA 12.0): the
/// signatures below are those of that version.
constexpr int kPinnedApiVersion = 12000;

/// The oldest driver odt's kernels load on (CUDA 12.1): they are PTX ISA 8.1,
/// whose 32 KB of kernel parameters (4 KB before) let the optimizer update
/// every parameter in one kernel.
constexpr int kMinimumDriverVersion = 12010;

// name, return-less parameter list. One list: the table's members, their
// resolution and the mock driver of the tests all follow it.
#define ODT_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit, unsigned)                                                          \
  X(cuDriverGetVersion, int *)                                                 \
  X(cuGetErrorName, Result_t, const char **)                                   \
  X(cuGetErrorString, Result_t, const char **)                                 \
  X(cuDeviceGetCount, int *)                                                   \
  X(cuDeviceGet, DeviceHandle *, int)                                          \
  X(cuDeviceGetAttribute, int *, int, DeviceHandle)                            \
  X(cuDeviceGetName, char *, int, DeviceHandle)                                \
  X(cuDevicePrimaryCtxRetain, ContextHandle *, DeviceHandle)                   \
  X(cuDevicePrimaryCtxRelease, DeviceHandle)                                   \
  X(cuCtxSetCurrent, ContextHandle)                                            \
  X(cuMemAlloc, DevicePtr *, size_t)                                           \
  X(cuMemFree, DevicePtr)                                                      \
  X(cuMemAllocHost, void **, size_t)                                           \
  X(cuMemFreeHost, void *)                                                     \
  X(cuMemcpyHtoDAsync, DevicePtr, const void *, size_t, StreamHandle)          \
  X(cuMemcpyDtoHAsync, void *, DevicePtr, size_t, StreamHandle)                \
  X(cuMemcpyDtoDAsync, DevicePtr, DevicePtr, size_t, StreamHandle)             \
  X(cuPointerGetAttribute, void *, int, DevicePtr)                             \
  X(cuModuleLoadData, ModuleHandle *, const void *)                            \
  X(cuModuleUnload, ModuleHandle)                                              \
  X(cuModuleGetFunction, FunctionHandle *, ModuleHandle, const char *)         \
  X(cuLaunchKernel, FunctionHandle, unsigned, unsigned, unsigned, unsigned,    \
    unsigned, unsigned, unsigned, StreamHandle, void **, void **)              \
  X(cuStreamCreate, StreamHandle *, unsigned)                                  \
  X(cuStreamDestroy, StreamHandle)                                             \
  X(cuStreamSynchronize, StreamHandle)                                         \
  X(cuStreamBeginCapture, StreamHandle, int)                                   \
  X(cuStreamEndCapture, StreamHandle, GraphHandle *)                           \
  X(cuGraphInstantiateWithFlags, GraphExecHandle *, GraphHandle,               \
    unsigned long long)                                                        \
  X(cuGraphLaunch, GraphExecHandle, StreamHandle)                              \
  X(cuGraphExecDestroy, GraphExecHandle)                                       \
  X(cuGraphDestroy, GraphHandle)

/// The entry points of one loaded driver library.
struct DriverFunctions {
#define ODT_CUDA_DECLARE_MEMBER(name, ...)                                     \
  Result_t (*name)(__VA_ARGS__) = nullptr;
  ODT_CUDA_DRIVER_FUNCTIONS(ODT_CUDA_DECLARE_MEMBER)
#undef ODT_CUDA_DECLARE_MEMBER
};

/// A loaded and initialized driver. Loaded once per library path for the
/// process and never unloaded (a driver library does not support it).
class Driver {
public:
  /// The driver at `path`, or at $ODT_CUDA_DRIVER, or libcuda.so.1 (the name
  /// every driver installation provides; the unversioned one often comes
  /// only with development packages).
  static Result<const Driver *> load(const std::string &path = "");

  const DriverFunctions &api() const { return functions; }
  int version() const { return driverVersion; }
  const std::string &path() const { return libraryPath; }

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's own name and
  /// text, or odt's table where the driver cannot say (the toolkit's stub).
  std::string describe(Result_t code) const;
  /// OK for CUDA_SUCCESS, else an error "<what>: <describe(code)>".
  Status check(Result_t code, const std::string &what) const;

private:
  Driver() = default;
  std::string libraryPath;
  DriverFunctions functions;
  int driverVersion = 0;
};

/// What a user asked to run on: "cpu", "cuda" (device 0) or "cuda:N".
struct DeviceSpec {
  enum class Kind { CPU, CUDA } kind = Kind::CPU;
  int ordinal = 0;
  std::string text() const;
};
Result<DeviceSpec> parseDeviceSpec(const std::string &text);

/// One memory allocation on the device; freed with its Device.
struct DeviceBuffer {
  DevicePtr address = 0;
  size_t bytes = 0;
};

/// Page-locked host memory (the staging buffers of a step's inputs and
/// outputs: a copy a step graph replays must read and write fixed host
/// addresses, and only page-locked ones may be copied asynchronously).
struct PinnedBuffer {
  void *address = nullptr;
  size_t bytes = 0;
};

/// A captured step, ready to replay: the graph and its executable.
struct StepGraph {
  GraphHandle graph = nullptr;
  GraphExecHandle executable = nullptr;
};

/// A kernel's launch: grid and block extents, dynamic shared memory and the
/// addresses of its parameters (cuLaunchKernel's kernelParams).
struct KernelLaunch {
  FunctionHandle function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<void *> parameters;
};

/// One CUDA device of one session: its primary context, one stream, the
/// memory and modules it loaded, the step graphs it captured. Everything is
/// released (in reverse order) when it is destroyed.
class Device {
public:
  static Result<std::unique_ptr<Device>>
  open(const DeviceSpec &spec, const std::string &driverPath = "");
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  int ordinal() const { return deviceOrdinal; }
  const std::string &name() const { return deviceName; }
  /// The compute capability as the chips of --gpu-arch name it ("sm_90").
  std::string chip() const;

  Result<DeviceBuffer> allocate(size_t bytes, const std::string &purpose);
  /// Frees a buffer `allocate` returned, after the work queued on the
  /// stream so far (which may still use it) has finished.
  Status free(DevicePtr address);
  Result<PinnedBuffer> allocatePinned(size_t bytes, const std::string &purpose);
  /// Frees a buffer `allocatePinned` returned, after the queued work.
  Status freePinned(void *address);
  /// Makes the device's context the calling thread's (a session may be used
  /// from several threads, one at a time); every call here but launch does
  /// it first.
  Status makeCurrent() const;
  Status copyToDevice(DevicePtr to, const void *from, size_t bytes);
  /// Copies and waits for the copy (and everything queued before it).
  Status copyToHost(void *to, DevicePtr from, size_t bytes);
  /// Enqueues a copy to (page-locked) host memory without waiting for it.
  Status enqueueCopyToHost(void *to, DevicePtr from, size_t bytes);
  /// Enqueues a copy between two places of this device's memory.
  Status enqueueCopyOnDevice(DevicePtr to, DevicePtr from, size_t bytes);
  /// OK when [address, address + bytes) lies in one allocation of this
  /// device's memory (a caller's buffer given as a tensor's data), else an
  /// error saying what it is instead: not CUDA memory, another device's,
  /// or an allocation too small.
  Status checkOwnMemory(DevicePtr address, size_t bytes) const;
  Status synchronize();

  /// Loads a PTX or cubin image and finds the named kernels in it.
  Result<std::vector<FunctionHandle>>
  loadKernels(const void *image, const std::vector<std::string> &names);
  /// Enqueues a launch; the device's context must be current (a caller
  /// launching many kernels makes it current once: makeCurrent).
  Status launch(const KernelLaunch &launch);

  /// Records what `record` enqueues on the stream (launches, copies) as one
  /// graph, instead of running it; then ready to replay. The capture is
  /// relaxed: the step's first device allocations may happen inside it
  /// (they are made once, at capture; the graph keeps their addresses).
  /// The graph lives as long as the device.
  Result<StepGraph> captureGraph(const std::function<Status()> &record);
  Status replayGraph(const StepGraph &graph);

private:
  Device(const Driver &driver) : driver(driver) {}
  /// OK, or the driver's error for `what`: text, or a function making it.
  /// The text is made only on failure, so that a step's calls (copies,
  /// launches, waits) allocate nothing.
  template <typename What> Status call(Result_t code, What &&what) const {
    if (code == 0) // CUDA_SUCCESS
      return Status::ok();
    if constexpr (std::is_invocable_v<What>)
      return driver.check(code, what());
    else
      return driver.check(code, std::string(what));
  }
  /// "<name> (cuda:N)", for messages.
  std::string label() const;

  const Driver &driver;
  int deviceOrdinal = 0;
  DeviceHandle device = 0;
  std::string deviceName;
  int major = 0, minor = 0;
  ContextHandle context = nullptr;
  StreamHandle stream = nullptr;
  std::vector<DeviceBuffer> buffers;
  std::vector<PinnedBuffer> pinnedBuffers;
  std::vector<ModuleHandle> modules;
  std::vector<StepGraph> graphs;
};

} // namespace cuda
} // namespace odt

#endif // ODT_RUNTIME_CUDADRIVER_H
