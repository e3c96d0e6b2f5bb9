#include "KernelRunner.h"

#include <algorithm>
#include <limits>

namespace odt {
namespace cuda {

namespace {

/// The runner of the calling thread's current call (the hooks have no
/// context argument: the model's code is shared by every session).
thread_local KernelRunner *currentRunner = nullptr;

struct CurrentRunner {
  explicit CurrentRunner(KernelRunner *runner) : previous(currentRunner) {
    currentRunner = runner;
  }
  ~CurrentRunner() { currentRunner = previous; }
  KernelRunner *previous;
};

// CUDA's limits on a launch (every compute capability odt targets).
constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxBlockThreads = 1024;
constexpr int64_t kMaxBlockZ = 64;

} // namespace

Result<std::unique_ptr<KernelRunner>>
KernelRunner::create(Device &device, std::shared_ptr<CompiledModel> model) {
  if (!model || !model->isGPUBuild())
    return Status::error("the compiled model is not a GPU build");
  const GPUImageSpec *image = selectGPUImage(*model, device.chip());
  if (!image)
    return Status::error("the compiled model has kernels for " +
                         model->gpuChips() + ", none of them for " +
                         device.chip() + " or an older chip");
  std::vector<std::string> names;
  for (const GPUKernelSpec &kernel : model->gpuKernels())
    names.push_back(kernel.name);
  std::unique_ptr<KernelRunner> runner(new KernelRunner(device, model));
  // SASS for exactly this chip when the build has it; else the PTX, which
  // the driver compiles for the device as it loads it.
  bool sass = !image->cubin.empty() && image->chip == device.chip();
  Result<std::vector<FunctionHandle>> functions =
      device.loadKernels(sass ? image->cubin.data() : image->ptx.data(), names);
  if (!functions)
    return functions.getStatus().withContext(
        "loading the " + image->chip + (sass ? " cubin" : " PTX") + " kernels");
  runner->loadedSASS = sass;
  runner->functions = functions.take();
  return runner;
}

KernelRunner::~KernelRunner() {
  // The blocks go back to the device (the model's code freed them all
  // unless a step failed half-way; those are freed too).
  graphBlocks.clear();
  releaseCachedBlocks();
  for (const auto &[address, bytes] : liveBlocks)
    (void)device.free(address);
}

void KernelRunner::releaseCachedBlocks() {
  for (auto it = freeBlocks.begin(); it != freeBlocks.end();) {
    if (graphBlocks.count(it->second)) {
      ++it;
      continue;
    }
    (void)device.free(it->second);
    it = freeBlocks.erase(it);
  }
}

Status KernelRunner::call(EntryKind kind,
                          const std::vector<DeviceTensor> &arguments) {
  const EntryPointSpec *entry = model->entryPoint(kind);
  if (!entry)
    return Status::error("the compiled model has no such entry point");
  if (arguments.size() != entry->arguments.size())
    return Status::error(entry->symbol + " takes " +
                         std::to_string(entry->arguments.size()) +
                         " buffers, given " + std::to_string(arguments.size()));
  // Each argument a memref descriptor, as EntryCall makes them. The shapes
  // are checked against the spec (static dims, one value per symbol): the
  // kernels index the buffers by them. The descriptors and the symbol
  // values are the runner's, reused: from the second call of an entry on,
  // a call allocates nothing.
  descriptors.resize(arguments.size());
  pointers.resize(arguments.size());
  symbolValues.clear();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Shape &shape = arguments[i].shape;
    const ArgumentSpec &spec = entry->arguments[i];
    size_t rank = spec.dims.size();
    if (shape.size() != rank)
      return Status::error("argument '" + spec.name + "' must have rank " +
                           std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      const DimSpec &dim = spec.dims[d];
      bool fits = shape[d] >= 0;
      if (fits && dim.size >= 0) {
        fits = shape[d] == dim.size;
      } else if (fits) {
        auto bound = std::find_if(
            symbolValues.begin(), symbolValues.end(),
            [&](const auto &entry) { return *entry.first == dim.symbol; });
        if (bound == symbolValues.end())
          symbolValues.emplace_back(&dim.symbol, shape[d]);
        else
          fits = bound->second == shape[d];
      }
      if (!fits)
        return Status::error("argument '" + spec.name + "' has shape " +
                             formatShape(shape) + ", not the one its spec " +
                             "and the other arguments give");
    }
    descriptors[i].resize(3 + 2 * rank);
    writeMemRefDescriptor(descriptors[i].data(),
                          static_cast<int64_t>(arguments[i].address), shape);
    pointers[i] = descriptors[i].data();
  }
  firstError = Status::ok();
  ODT_RETURN_IF_ERROR(device.makeCurrent());
  {
    CurrentRunner scope(this);
    entry->function(pointers.data());
  }
  Status status = std::move(firstError);
  firstError = Status::ok();
  return status.isOk() ? Status::ok() : status.withContext(entry->symbol);
}

Status KernelRunner::launch(int32_t kernel, const int64_t grid[3],
                            const int64_t block[3], int32_t sharedBytes,
                            void **parameters, int32_t count) {
  const std::vector<GPUKernelSpec> &kernels = model->gpuKernels();
  if (kernel < 0 || static_cast<size_t>(kernel) >= kernels.size())
    return Status::error("the model launched kernel " + std::to_string(kernel) +
                         " of " + std::to_string(kernels.size()));
  const GPUKernelSpec &spec = kernels[kernel];
  if (count != spec.parameters)
    return Status::error(
        "kernel " + spec.name + " takes " + std::to_string(spec.parameters) +
        " parameters, the model's launch passed " + std::to_string(count));
  // A grid over no elements (an empty batch) launches nothing.
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return Status::ok();
  // Each block dim bounded before their product is taken.
  bool blockFits = block[0] >= 1 && block[0] <= kMaxBlockThreads &&
                   block[1] >= 1 && block[1] <= kMaxBlockThreads &&
                   block[2] >= 1 && block[2] <= kMaxBlockZ &&
                   block[0] * block[1] * block[2] <= kMaxBlockThreads;
  if (grid[0] < 0 || grid[0] > kMaxGridX || grid[1] < 0 ||
      grid[1] > kMaxGridYZ || grid[2] < 0 || grid[2] > kMaxGridYZ ||
      !blockFits || sharedBytes < 0 || (count > 0 && !parameters))
    return Status::error(
        "kernel " + spec.name + " launched with grid " +
        std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
        std::to_string(grid[2]) + " and block " + std::to_string(block[0]) +
        "x" + std::to_string(block[1]) + "x" + std::to_string(block[2]) +
        ", beyond CUDA's limits (the batch is too large for one launch)");
  pending.function = functions[kernel];
  for (int d = 0; d < 3; ++d) {
    pending.grid[d] = static_cast<unsigned>(grid[d]);
    pending.block[d] = static_cast<unsigned>(block[d]);
  }
  pending.sharedBytes = static_cast<unsigned>(sharedBytes);
  pending.parameters.assign(parameters, parameters + count);
  Status launched = device.launch(pending);
  if (!launched.isOk())
    return launched.withContext("launching " + spec.name);
  ++launchCount;
  return Status::ok();
}

void *KernelRunner::allocate(uint64_t bytes) {
  if (!firstError.isOk())
    return nullptr;
  // Zero bytes still get a distinct block, as malloc's contract for the
  // host code is a unique address.
  size_t size = bytes ? static_cast<size_t>(bytes) : 1;
  DevicePtr address = 0;
  auto reuse = freeBlocks.find(size);
  if (reuse != freeBlocks.end()) {
    address = reuse->second;
    freeBlocks.erase(reuse);
  } else {
    Result<DeviceBuffer> buffer =
        device.allocate(size, "the step's intermediate buffers");
    // (Not while capturing: freeing waits for the stream, which a capture
    // refuses.)
    if (!buffer && !freeBlocks.empty() && !capturingGraph) {
      // Blocks kept for other sizes (another batch size's arena) go back
      // to the device before the step gives up.
      releaseCachedBlocks();
      buffer = device.allocate(size, "the step's intermediate buffers");
    }
    if (!buffer) {
      fail(buffer.getStatus());
      return nullptr;
    }
    address = buffer->address;
  }
  liveBlocks.emplace(address, size);
  usedBytes += size;
  if (capturingGraph)
    graphBlocks.insert(address);
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

void KernelRunner::release(void *block) {
  if (!block)
    return;
  auto it = liveBlocks.find(reinterpret_cast<uintptr_t>(block));
  if (it == liveBlocks.end())
    return fail(Status::error("the model freed a device block it did not "
                              "allocate"));
  usedBytes -= it->second;
  freeBlocks.emplace(it->second, it->first);
  liveBlocks.erase(it);
}

void KernelRunner::launchHook(int32_t kernel, int64_t gridX, int64_t gridY,
                              int64_t gridZ, int64_t blockX, int64_t blockY,
                              int64_t blockZ, int32_t sharedBytes,
                              void **parameters, int32_t count) {
  // Outside a runner's call (the runtime never calls a GPU build so), or
  // after the step failed: launch nothing.
  if (!currentRunner || !currentRunner->firstError.isOk())
    return;
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  currentRunner->fail(currentRunner->launch(kernel, grid, block, sharedBytes,
                                            parameters, count));
}

void *KernelRunner::allocateHook(uint64_t bytes) {
  return currentRunner ? currentRunner->allocate(bytes) : nullptr;
}

void KernelRunner::releaseHook(void *block) {
  if (currentRunner)
    currentRunner->release(block);
}

} // namespace cuda
} // namespace odt
