//===- StepAllocator.h - heap buffers reused from step to step --*- C++ -*-===//
//
// Compiled models allocate inside a step and free before it returns: each
// entry's arena (odt-plan-arena) and the buffers it leaves apart (inside
// loops and branches, or sized by data). The runtime routes those calls
// here (P_set_allocator): freed blocks
// are kept in a per-thread cache keyed by size and handed out again, so from
// the second step on a step asks the system for no memory (no malloc, no
// mmap, no page faults on fresh pages), whichever pool thread runs which
// parallel iteration (TaskBlockCache).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_RUNTIME_STEPALLOCATOR_H
#define ODT_RUNTIME_STEPALLOCATOR_H

#include <cstddef>
#include <cstdint>

namespace odt {

/// A block of at least `size` bytes, 64-byte aligned; null when out of memory.
void *stepAllocate(uint64_t size);
/// Returns a block from stepAllocate (null is ignored) to the calling
/// thread's cache.
void stepRelease(void *block);

/// The blocks that the parallel tasks of one thread pool allocate. Any
/// thread of a pool may run any iteration of a parallel loop (a thread takes
/// over the share of one that is not running), so a per-thread cache would
/// meet an iteration's allocation on a thread for the first time in a late
/// step. Inside a task, blocks come from and go back to this cache, shared
/// by the pool's threads; when it has none of a size it asks the system for
/// one per thread of the pool at once, since each thread may run such an
/// iteration at the same time. From the second step on, a step's tasks then
/// find every block they need, whichever thread runs which iteration.
///
/// In front of the shared lists, each thread of the pool keeps the last few
/// blocks it released, which it takes back without the lock: a convolution
/// allocates its column buffer in every image's iteration, and at 2 threads
/// the two threads' take and put on the one mutex were 2% of a strided
/// layer's training step.
class TaskBlockCache {
public:
  explicit TaskBlockCache(int threads);
  ~TaskBlockCache();
  TaskBlockCache(const TaskBlockCache &) = delete;
  TaskBlockCache &operator=(const TaskBlockCache &) = delete;

  int threads() const { return threadCount; }
  /// A cached block of `size` (rounded) bytes, or null; `thread` is the
  /// calling thread's index in the pool.
  void *take(uint64_t size, int thread);
  void put(void *block, int thread);

private:
  struct Blocks;
  int threadCount;
  Blocks *blocks;
};

/// While set, the calling thread (index `thread` of its pool) runs a
/// parallel task of the pool that owns `cache`: stepAllocate and
/// stepRelease use it. Null clears it.
void setStepTaskContext(TaskBlockCache *cache, int thread = 0);

} // namespace odt

#endif // ODT_RUNTIME_STEPALLOCATOR_H
