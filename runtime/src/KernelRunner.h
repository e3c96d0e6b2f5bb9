// Runs a GPU build's entry points on a CUDA device. odt-compile's GPU build
// (--gpu-arch) is host code that sizes buffers and launches kernels through
// two hooks the runtime installs when it loads the model: its allocator
// (device memory, odt_model_set_allocator) and its launcher
// (odt_model_set_launcher). Both reach the KernelRunner of the calling
// thread's current call; the runner loads the kernels from the image for
// its device's chip, checks every launch against the kernel table the
// descriptor carries (kernel number, parameter count, grid and block
// limits) and keeps the first failure, which the call then returns.
//
// Device blocks the host code frees are kept and handed out again for the
// same size (one stream: a block's next use is ordered after its last), so
// from the second call of a step on, a step allocates nothing; when the
// device runs out, the kept blocks are freed and the allocation tried
// again, and the runner frees them all when it goes.

#ifndef ODT_RUNTIME_KERNELRUNNER_H
#define ODT_RUNTIME_KERNELRUNNER_H

#include "CompiledModel.h"
#include "CudaDriver.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace odt {
namespace cuda {

/// One buffer an entry point is called with: device memory and its shape.
struct DeviceTensor {
  DevicePtr address = 0;
  Shape shape;
};

class KernelRunner {
public:
  /// Loads the kernels of `model` (a GPU build) for `device`'s chip.
  static Result<std::unique_ptr<KernelRunner>>
  create(Device &device, std::shared_ptr<CompiledModel> model);
  ~KernelRunner();
  KernelRunner(const KernelRunner &) = delete;
  KernelRunner &operator=(const KernelRunner &) = delete;

  /// Calls entry point `kind` with `arguments` (one per argument of its
  /// spec, in order, each of the argument's rank) with this runner's
  /// launcher and allocator for the calling thread. The launches are
  /// enqueued on the device's stream; the first failure comes back.
  Status call(EntryKind kind, const std::vector<DeviceTensor> &arguments);

  /// One launch as the model's code asks for it, checked against the
  /// kernel table (number, parameter count) and CUDA's grid and block
  /// limits; a grid over no elements launches nothing. The launcher hook
  /// calls it and keeps its first failure for the call.
  Status launch(int32_t kernel, const int64_t grid[3], const int64_t block[3],
                int32_t sharedBytes, void **parameters, int32_t count);

  /// While set, the blocks handed out are taken into the step graphs being
  /// captured: a graph replays with their addresses, so they are never
  /// given back to the device (only reused by later calls, which the one
  /// stream orders after the replays), until the runner goes.
  void setCapturing(bool capturing) { capturingGraph = capturing; }

  /// Whether the kernels were loaded as SASS (the build's cubin for the
  /// device's chip) rather than compiled from PTX by the driver.
  bool loadedCubin() const { return loadedSASS; }

  /// Launches enqueued so far.
  size_t launches() const { return launchCount; }
  /// Device bytes the host code holds now (allocated and not yet freed).
  size_t bytesInUse() const { return usedBytes; }

  // The hooks the model calls (installed by CompiledModel for GPU builds).
  static void launchHook(int32_t kernel, int64_t gridX, int64_t gridY,
                         int64_t gridZ, int64_t blockX, int64_t blockY,
                         int64_t blockZ, int32_t sharedBytes, void **parameters,
                         int32_t count);
  static void *allocateHook(uint64_t bytes);
  static void releaseHook(void *block);

private:
  KernelRunner(Device &device, std::shared_ptr<CompiledModel> model)
      : device(device), model(std::move(model)) {}
  void *allocate(uint64_t bytes);
  /// Frees the blocks kept for reuse.
  void releaseCachedBlocks();
  void release(void *block);
  void fail(Status status) {
    if (firstError.isOk())
      firstError = std::move(status);
  }

  Device &device;
  std::shared_ptr<CompiledModel> model;
  std::vector<FunctionHandle> functions;
  // Reused by every call and launch (a step allocates nothing once warm).
  KernelLaunch pending;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> pointers;
  std::vector<std::pair<const std::string *, int64_t>> symbolValues;
  size_t launchCount = 0;
  bool loadedSASS = false;
  // Blocks handed out (address -> bytes) and blocks kept for reuse.
  std::unordered_map<DevicePtr, size_t> liveBlocks;
  std::multimap<size_t, DevicePtr> freeBlocks;
  std::unordered_set<DevicePtr> graphBlocks;
  bool capturingGraph = false;
  size_t usedBytes = 0;
  Status firstError = Status::ok();
};

} // namespace cuda
} // namespace odt

#endif // ODT_RUNTIME_KERNELRUNNER_H
