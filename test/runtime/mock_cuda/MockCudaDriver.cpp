// A mock CUDA driver for the runtime's tests on machines without a GPU: a
// shared library the runtime loads like libcuda.so.1 (through
// ODT_CUDA_DRIVER or a path), exporting cuGetProcAddress_v2 only, as a real
// driver is used. Device memory is host memory; launches, copies and graph
// captures are recorded in a log the tests read; the failures a real driver
// gives (out of memory, no device, a bad image, a missing kernel, capture
// misuse) come back with the driver's codes.
//
// Control (C functions, found by the tests with dlsym):
//   odtMockCudaReset()                    forget everything, default settings
//   odtMockCudaSet(key, value)            "devices", "major", "minor",
//                                         "memory" (bytes the device has),
//                                         "init_result", "driver_version",
//                                         "log" (0: no events recorded)
//   odtMockCudaLog()                      the events, one per line
//   odtMockCudaLiveBytes()                device bytes allocated, not freed
//   odtMockCudaContextRefs()              primary context retains - releases
// A tool run by a test takes the settings from $ODT_MOCK_CUDA
// ("major=8,minor=7").

#include "CudaDriver.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace odt::cuda;

namespace {

constexpr Result_t kSuccess = 0;
constexpr Result_t kInvalidValue = 1;
constexpr Result_t kOutOfMemory = 2;
constexpr Result_t kNotInitialized = 3;
constexpr Result_t kInvalidDevice = 101;
constexpr Result_t kInvalidImage = 200;
constexpr Result_t kInvalidHandle = 400;
constexpr Result_t kIllegalState = 401;
constexpr Result_t kNotFound = 500;
constexpr Result_t kCaptureUnsupported = 900;

struct Settings {
  long long devices = 1;
  long long major = 9;
  long long minor = 0;
  long long memory = 1 << 30;
  long long initResult = kSuccess;
  long long driverVersion = 13000;
  /// 0: record no events (a test counting the process's allocations).
  long long log = 1;
};

struct Kernel {
  std::string name;
};

/// An operation enqueued on a stream: run now, or kept by a capture.
struct Operation {
  std::string event;
  // A copy is done at replay between the same host and device addresses:
  // to the device from `from`, or from the device at `deviceFrom` to
  // `toHost`, or to the device (`to`) from the device at `deviceFrom`.
  DevicePtr to = 0;
  const void *from = nullptr;
  size_t bytes = 0;
  DevicePtr deviceFrom = 0;
  void *toHost = nullptr;
};

struct State {
  Settings settings;
  bool initialized = false;
  std::string log;
  std::map<DevicePtr, std::vector<unsigned char>> allocations;
  long long liveBytes = 0;
  std::map<void *, std::vector<unsigned char>> pinned;
  int contextRefs = 0;
  int contextTag = 0; // its address is the context handle
  std::map<ModuleHandle, std::string> modules;
  std::vector<std::unique_ptr<Kernel>> kernels;
  int streamTag = 0; // every stream's handle (they share one queue)
  int liveStreams = 0;
  bool capturing = false;
  std::vector<Operation> captured;
  std::map<GraphHandle, std::vector<Operation>> graphs;
  std::map<GraphExecHandle, std::vector<Operation>> executables;
  int nextHandle = 1;
};

/// Settings from $ODT_MOCK_CUDA ("major=8,minor=7"), for tests that run a
/// tool and cannot call odtMockCudaSet; unknown keys are ignored.
void applyEnvironment(Settings &settings) {
  const char *text = std::getenv("ODT_MOCK_CUDA");
  if (!text)
    return;
  const std::map<std::string, long long *> keys = {
      {"devices", &settings.devices},
      {"major", &settings.major},
      {"minor", &settings.minor},
      {"memory", &settings.memory},
      {"log", &settings.log}};
  std::string rest = text;
  while (!rest.empty()) {
    std::string item = rest.substr(0, rest.find(','));
    rest = item.size() < rest.size() ? rest.substr(item.size() + 1) : "";
    size_t equals = item.find('=');
    auto it = keys.find(item.substr(0, equals));
    if (equals != std::string::npos && it != keys.end())
      *it->second = std::atoll(item.c_str() + equals + 1);
  }
}

State &state() {
  static State instance = [] {
    State made;
    applyEnvironment(made.settings);
    return made;
  }();
  return instance;
}

void record(const std::string &event) {
  if (state().settings.log)
    state().log += event + "\n";
}

template <typename Handle> Handle newHandle() {
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(
      0x1000 * static_cast<uintptr_t>(state().nextHandle++)));
}

/// The allocation `address` lies in (its start and bytes), or null.
const std::pair<const DevicePtr, std::vector<unsigned char>> *
allocationHolding(DevicePtr address) {
  auto &allocations = state().allocations;
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin())
    return nullptr;
  --it;
  return address - it->first < it->second.size() ? &*it : nullptr;
}

/// The allocation holding [address, address + bytes), or null.
unsigned char *deviceBytes(DevicePtr address, size_t bytes) {
  auto *allocation = allocationHolding(address);
  if (!allocation)
    return nullptr;
  size_t offset = address - allocation->first;
  if (offset + bytes > allocation->second.size())
    return nullptr;
  return const_cast<unsigned char *>(allocation->second.data()) + offset;
}

void perform(const Operation &operation) {
  if (operation.from)
    std::memcpy(deviceBytes(operation.to, operation.bytes), operation.from,
                operation.bytes);
  if (operation.toHost)
    std::memcpy(operation.toHost,
                deviceBytes(operation.deviceFrom, operation.bytes),
                operation.bytes);
  if (!operation.from && !operation.toHost && operation.deviceFrom)
    std::memmove(deviceBytes(operation.to, operation.bytes),
                 deviceBytes(operation.deviceFrom, operation.bytes),
                 operation.bytes);
  record(operation.event);
}

/// Runs `operation` now, or keeps it for the graph being captured.
Result_t enqueue(StreamHandle stream, Operation operation) {
  if (stream != reinterpret_cast<StreamHandle>(&state().streamTag) ||
      state().liveStreams == 0)
    return kInvalidHandle;
  if (state().capturing) {
    state().captured.push_back(std::move(operation));
    return kSuccess;
  }
  perform(operation);
  return kSuccess;
}

Result_t requireInit() {
  return state().initialized ? kSuccess : kNotInitialized;
}

// --- the driver's entry points ---------------------------------------------

Result_t mockInit(unsigned) {
  if (state().settings.initResult != kSuccess)
    return static_cast<Result_t>(state().settings.initResult);
  state().initialized = true;
  return kSuccess;
}

Result_t mockDriverGetVersion(int *version) {
  *version = static_cast<int>(state().settings.driverVersion);
  return kSuccess;
}

Result_t mockGetErrorName(Result_t code, const char **name) {
  static const std::map<Result_t, const char *> names = {
      {kSuccess, "CUDA_SUCCESS"},
      {kInvalidValue, "CUDA_ERROR_INVALID_VALUE"},
      {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY"},
      {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED"},
      {100, "CUDA_ERROR_NO_DEVICE"},
      {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE"},
      {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE"},
      {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE"},
      {kIllegalState, "CUDA_ERROR_ILLEGAL_STATE"},
      {kNotFound, "CUDA_ERROR_NOT_FOUND"},
      {kCaptureUnsupported, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"}};
  auto it = names.find(code);
  if (it == names.end())
    return kInvalidValue;
  *name = it->second;
  return kSuccess;
}

Result_t mockGetErrorString(Result_t code, const char **text) {
  if (code == kOutOfMemory) {
    *text = "out of memory";
    return kSuccess;
  }
  return kInvalidValue;
}

Result_t mockDeviceGetCount(int *count) {
  if (Result_t code = requireInit())
    return code;
  *count = static_cast<int>(state().settings.devices);
  return kSuccess;
}

Result_t mockDeviceGet(DeviceHandle *device, int ordinal) {
  if (Result_t code = requireInit())
    return code;
  if (ordinal < 0 || ordinal >= state().settings.devices)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

Result_t mockDeviceGetAttribute(int *value, int attribute, DeviceHandle) {
  if (attribute == 75)
    *value = static_cast<int>(state().settings.major);
  else if (attribute == 76)
    *value = static_cast<int>(state().settings.minor);
  else
    return kInvalidValue;
  return kSuccess;
}

Result_t mockDeviceGetName(char *name, int length, DeviceHandle device) {
  std::snprintf(name, static_cast<size_t>(length), "odt mock GPU %d", device);
  return kSuccess;
}

Result_t mockPrimaryCtxRetain(ContextHandle *context, DeviceHandle) {
  ++state().contextRefs;
  *context = reinterpret_cast<ContextHandle>(&state().contextTag);
  record("context retain");
  return kSuccess;
}

Result_t mockPrimaryCtxRelease(DeviceHandle) {
  --state().contextRefs;
  record("context release");
  return kSuccess;
}

Result_t mockCtxSetCurrent(ContextHandle context) {
  return context == reinterpret_cast<ContextHandle>(&state().contextTag)
             ? kSuccess
             : kInvalidHandle;
}

Result_t mockMemAlloc(DevicePtr *address, size_t bytes) {
  if (bytes == 0)
    return kInvalidValue;
  if (state().liveBytes + static_cast<long long>(bytes) >
      state().settings.memory)
    return kOutOfMemory;
  std::vector<unsigned char> memory(bytes, 0xAB);
  *address = reinterpret_cast<DevicePtr>(memory.data());
  state().allocations.emplace(*address, std::move(memory));
  state().liveBytes += static_cast<long long>(bytes);
  record("alloc " + std::to_string(bytes));
  return kSuccess;
}

Result_t mockMemFree(DevicePtr address) {
  auto it = state().allocations.find(address);
  if (it == state().allocations.end())
    return kInvalidValue;
  state().liveBytes -= static_cast<long long>(it->second.size());
  record("free " + std::to_string(it->second.size()));
  state().allocations.erase(it);
  return kSuccess;
}

Result_t mockMemAllocHost(void **address, size_t bytes) {
  if (bytes == 0)
    return kInvalidValue;
  std::vector<unsigned char> memory(bytes, 0xCD);
  *address = memory.data();
  state().pinned.emplace(*address, std::move(memory));
  record("alloc host " + std::to_string(bytes));
  return kSuccess;
}

Result_t mockMemFreeHost(void *address) {
  auto it = state().pinned.find(address);
  if (it == state().pinned.end())
    return kInvalidValue;
  record("free host " + std::to_string(it->second.size()));
  state().pinned.erase(it);
  return kSuccess;
}

Result_t mockMemcpyHtoDAsync(DevicePtr to, const void *from, size_t bytes,
                             StreamHandle stream) {
  if (!deviceBytes(to, bytes))
    return kInvalidValue;
  return enqueue(stream,
                 {"copy to device " + std::to_string(bytes), to, from, bytes});
}

Result_t mockMemcpyDtoHAsync(void *to, DevicePtr from, size_t bytes,
                             StreamHandle stream) {
  if (!deviceBytes(from, bytes))
    return kInvalidValue;
  Operation copy;
  copy.event = "copy to host " + std::to_string(bytes);
  copy.deviceFrom = from;
  copy.toHost = to;
  copy.bytes = bytes;
  return enqueue(stream, copy);
}

Result_t mockMemcpyDtoDAsync(DevicePtr to, DevicePtr from, size_t bytes,
                             StreamHandle stream) {
  if (!deviceBytes(to, bytes) || !deviceBytes(from, bytes))
    return kInvalidValue;
  Operation copy;
  copy.event = "copy on device " + std::to_string(bytes);
  copy.to = to;
  copy.deviceFrom = from;
  copy.bytes = bytes;
  return enqueue(stream, copy);
}

/// CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL (9), RANGE_START_ADDR (11) and
/// RANGE_SIZE (12) of the mock's allocations (all on device 0).
Result_t mockPointerGetAttribute(void *data, int attribute, DevicePtr address) {
  auto *allocation = allocationHolding(address);
  if (!allocation)
    return kInvalidValue;
  switch (attribute) {
  case 9:
    *static_cast<int *>(data) = 0;
    return kSuccess;
  case 11:
    *static_cast<DevicePtr *>(data) = allocation->first;
    return kSuccess;
  case 12:
    *static_cast<size_t *>(data) = allocation->second.size();
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

Result_t mockModuleLoadData(ModuleHandle *module, const void *image) {
  const char *text = static_cast<const char *>(image);
  if (!text)
    return kInvalidImage;
  // A cubin: a 64-bit ELF object for the CUDA machine (EM_CUDA, 190). Its
  // size is in its section headers; the mock reads up to the end of the
  // section header table.
  if (std::memcmp(text,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    const unsigned char *bytes = static_cast<const unsigned char *>(image);
    if (bytes[4] != 2) // not a 64-bit ELF (then not a 64-byte header either)
      return kInvalidImage;
    uint16_t machine = 0;
    uint64_t sectionTable = 0;
    uint16_t sectionSize = 0, sections = 0;
    std::memcpy(&machine, bytes + 18, 2);
    std::memcpy(&sectionTable, bytes + 40, 8);
    std::memcpy(&sectionSize, bytes + 58, 2);
    std::memcpy(&sections, bytes + 60, 2);
    if (machine != 190)
      return kInvalidImage;
    *module = newHandle<ModuleHandle>();
    state().modules.emplace(
        *module,
        std::string(text, sectionTable + uint64_t(sectionSize) * sections));
    record("module load cubin");
    return kSuccess;
  }
  // PTX text, as odt-compile --emit=ptx writes it.
  if (std::strncmp(text, "//", 2) != 0 &&
      std::strncmp(text, ".version", 8) != 0)
    return kInvalidImage;
  *module = newHandle<ModuleHandle>();
  state().modules.emplace(*module, text);
  record("module load");
  return kSuccess;
}

Result_t mockModuleUnload(ModuleHandle module) {
  if (!state().modules.erase(module))
    return kInvalidHandle;
  record("module unload");
  return kSuccess;
}

Result_t mockModuleGetFunction(FunctionHandle *function, ModuleHandle module,
                               const char *name) {
  auto it = state().modules.find(module);
  if (it == state().modules.end())
    return kInvalidHandle;
  // A PTX module declares its kernels as .entry; a cubin names them in its
  // string table.
  bool ptx = it->second.compare(0, 4,
                                "\x7f"
                                "ELF") != 0;
  std::string wanted = ptx ? std::string(".entry ") + name
                           : std::string(1, '\0') + name + std::string(1, '\0');
  if (it->second.find(wanted) == std::string::npos)
    return kNotFound;
  state().kernels.push_back(std::make_unique<Kernel>(Kernel{name}));
  *function = reinterpret_cast<FunctionHandle>(state().kernels.back().get());
  return kSuccess;
}

Result_t mockLaunchKernel(FunctionHandle function, unsigned gridX,
                          unsigned gridY, unsigned gridZ, unsigned blockX,
                          unsigned blockY, unsigned blockZ, unsigned shared,
                          StreamHandle stream, void **, void **) {
  if (!function || gridX * gridY * gridZ == 0 || blockX * blockY * blockZ == 0)
    return kInvalidValue;
  const std::string &name = reinterpret_cast<Kernel *>(function)->name;
  return enqueue(
      stream, {"launch " + name + " grid " + std::to_string(gridX) + "x" +
               std::to_string(gridY) + "x" + std::to_string(gridZ) + " block " +
               std::to_string(blockX) + "x" + std::to_string(blockY) + "x" +
               std::to_string(blockZ) + " shared " + std::to_string(shared)});
}

Result_t mockStreamCreate(StreamHandle *stream, unsigned) {
  ++state().liveStreams;
  *stream = reinterpret_cast<StreamHandle>(&state().streamTag);
  record("stream create");
  return kSuccess;
}

Result_t mockStreamDestroy(StreamHandle) {
  if (state().liveStreams == 0)
    return kInvalidHandle;
  --state().liveStreams;
  record("stream destroy");
  return kSuccess;
}

Result_t mockStreamSynchronize(StreamHandle) {
  return state().capturing ? kCaptureUnsupported : kSuccess;
}

Result_t mockStreamBeginCapture(StreamHandle, int) {
  if (state().capturing)
    return kIllegalState;
  state().capturing = true;
  state().captured.clear();
  record("capture begin");
  return kSuccess;
}

Result_t mockStreamEndCapture(StreamHandle, GraphHandle *graph) {
  if (!state().capturing)
    return kIllegalState;
  state().capturing = false;
  *graph = newHandle<GraphHandle>();
  state().graphs[*graph] = std::move(state().captured);
  state().captured.clear();
  record("capture end " + std::to_string(state().graphs[*graph].size()) +
         " nodes");
  return kSuccess;
}

Result_t mockGraphInstantiate(GraphExecHandle *executable, GraphHandle graph,
                              unsigned long long) {
  auto it = state().graphs.find(graph);
  if (it == state().graphs.end())
    return kInvalidHandle;
  *executable = newHandle<GraphExecHandle>();
  state().executables[*executable] = it->second;
  return kSuccess;
}

Result_t mockGraphLaunch(GraphExecHandle executable, StreamHandle stream) {
  auto it = state().executables.find(executable);
  if (it == state().executables.end())
    return kInvalidHandle;
  if (state().capturing)
    return kCaptureUnsupported;
  if (stream != reinterpret_cast<StreamHandle>(&state().streamTag) ||
      state().liveStreams == 0)
    return kInvalidHandle;
  record("graph launch");
  // Run in order, as the stream would (not copied: a replay allocates
  // nothing, for the tests that count allocations).
  for (const Operation &operation : it->second)
    perform(operation);
  return kSuccess;
}

Result_t mockGraphExecDestroy(GraphExecHandle executable) {
  return state().executables.erase(executable) ? kSuccess : kInvalidHandle;
}

Result_t mockGraphDestroy(GraphHandle graph) {
  return state().graphs.erase(graph) ? kSuccess : kInvalidHandle;
}

/// The table in the runtime's declared signatures: a mock function whose
/// signature differs from the runtime's does not compile.
const DriverFunctions &mockFunctions() {
  static const DriverFunctions table = [] {
    DriverFunctions functions;
    functions.cuInit = mockInit;
    functions.cuDriverGetVersion = mockDriverGetVersion;
    functions.cuGetErrorName = mockGetErrorName;
    functions.cuGetErrorString = mockGetErrorString;
    functions.cuDeviceGetCount = mockDeviceGetCount;
    functions.cuDeviceGet = mockDeviceGet;
    functions.cuDeviceGetAttribute = mockDeviceGetAttribute;
    functions.cuDeviceGetName = mockDeviceGetName;
    functions.cuDevicePrimaryCtxRetain = mockPrimaryCtxRetain;
    functions.cuDevicePrimaryCtxRelease = mockPrimaryCtxRelease;
    functions.cuCtxSetCurrent = mockCtxSetCurrent;
    functions.cuMemAlloc = mockMemAlloc;
    functions.cuMemFree = mockMemFree;
    functions.cuMemAllocHost = mockMemAllocHost;
    functions.cuMemFreeHost = mockMemFreeHost;
    functions.cuMemcpyHtoDAsync = mockMemcpyHtoDAsync;
    functions.cuMemcpyDtoHAsync = mockMemcpyDtoHAsync;
    functions.cuMemcpyDtoDAsync = mockMemcpyDtoDAsync;
    functions.cuPointerGetAttribute = mockPointerGetAttribute;
    functions.cuModuleLoadData = mockModuleLoadData;
    functions.cuModuleUnload = mockModuleUnload;
    functions.cuModuleGetFunction = mockModuleGetFunction;
    functions.cuLaunchKernel = mockLaunchKernel;
    functions.cuStreamCreate = mockStreamCreate;
    functions.cuStreamDestroy = mockStreamDestroy;
    functions.cuStreamSynchronize = mockStreamSynchronize;
    functions.cuStreamBeginCapture = mockStreamBeginCapture;
    functions.cuStreamEndCapture = mockStreamEndCapture;
    functions.cuGraphInstantiateWithFlags = mockGraphInstantiate;
    functions.cuGraphLaunch = mockGraphLaunch;
    functions.cuGraphExecDestroy = mockGraphExecDestroy;
    functions.cuGraphDestroy = mockGraphDestroy;
    return functions;
  }();
  return table;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) Result_t
cuGetProcAddress_v2(const char *symbol, void **function, int apiVersion,
                    uint64_t, int *symbolStatus) {
  const DriverFunctions &table = mockFunctions();
  *function = nullptr;
#define ODT_MOCK_LOOKUP(name, ...)                                             \
  if (std::strcmp(symbol, #name) == 0)                                         \
    *function = reinterpret_cast<void *>(table.name);
  ODT_CUDA_DRIVER_FUNCTIONS(ODT_MOCK_LOOKUP)
#undef ODT_MOCK_LOOKUP
  if (symbolStatus)
    *symbolStatus = *function ? 0 : 1;
  record(std::string("resolve ") + symbol + " " + std::to_string(apiVersion));
  return *function ? kSuccess : kNotFound;
}

__attribute__((visibility("default"))) void odtMockCudaReset() {
  state() = State();
}

__attribute__((visibility("default"))) int odtMockCudaSet(const char *key,
                                                          long long value) {
  Settings &settings = state().settings;
  const std::map<std::string, long long *> keys = {
      {"devices", &settings.devices},
      {"major", &settings.major},
      {"minor", &settings.minor},
      {"memory", &settings.memory},
      {"init_result", &settings.initResult},
      {"driver_version", &settings.driverVersion},
      {"log", &settings.log}};
  auto it = keys.find(key);
  if (it == keys.end())
    return 0;
  *it->second = value;
  return 1;
}

__attribute__((visibility("default"))) const char *odtMockCudaLog() {
  return state().log.c_str();
}

__attribute__((visibility("default"))) long long odtMockCudaLiveBytes() {
  return state().liveBytes;
}

__attribute__((visibility("default"))) int odtMockCudaContextRefs() {
  return state().contextRefs;
}

} // extern "C"
