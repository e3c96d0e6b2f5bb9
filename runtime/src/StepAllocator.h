//===- StepAllocator.h - heap buffers reused from step to step --*- C++ -*-===//
//
// Compiled models allocate their intermediate buffers on the heap inside a
// step and free them before it returns (until a static memory plan replaces
// that). The runtime routes those calls here (P_set_allocator): freed blocks
// are kept in a per-thread cache keyed by size and handed out again, so from
// the second step on a step asks the system for no memory (no malloc, no
// mmap, no page faults on fresh pages), whichever pool thread runs which
// parallel iteration (StepInboxes).
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

/// Spare blocks for the threads of one thread pool. Any thread of a pool may
/// run any iteration of a parallel loop (a thread takes over the share of
/// one that is not running), so the first time a thread runs an iteration
/// that allocates, its cache is empty. To keep steps after the first free of
/// system allocations, a thread inside a parallel task that has to ask the
/// system for a block asks for one more per other thread of the pool and
/// leaves it in that thread's inbox, where that thread looks on a miss: all
/// threads run the same loop bodies, so each finds what it will need.
class StepInboxes {
public:
  explicit StepInboxes(int threads);
  ~StepInboxes();
  StepInboxes(const StepInboxes &) = delete;
  StepInboxes &operator=(const StepInboxes &) = delete;

  int size() const { return threads; }
  void *take(int thread, uint64_t size);
  void put(int thread, void *block);

private:
  struct Inbox;
  int threads;
  Inbox *inboxes;
};

/// While set, the calling thread is thread `index` of the pool that owns
/// `inboxes`, running a parallel task; null clears it.
void setStepTaskContext(StepInboxes *inboxes, int index);

} // namespace odt

#endif // ODT_RUNTIME_STEPALLOCATOR_H
