//===- StepAllocator.cpp - heap buffers reused from step to step ----------===//

#include "StepAllocator.h"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace odt {
namespace {

constexpr uint64_t kAlignment = 64;

/// In front of every block: its usable size and the cache list link. One
/// alignment unit, so the user pointer stays 64-byte aligned.
struct alignas(kAlignment) Header {
  uint64_t size; // usable bytes (a multiple of kAlignment)
  Header *next;  // in a cache list while free
};

/// Free blocks by exact size: an open-addressing table of size classes,
/// each a LIFO list. A step allocates the same sizes every time, so exact
/// sizes hit. Fixed storage: the cache itself never allocates.
class ThreadCache {
public:
  ~ThreadCache() {
    for (Bucket &bucket : buckets)
      while (Header *block = bucket.head) {
        bucket.head = block->next;
        std::free(block);
      }
  }

  Header *take(uint64_t size) {
    Bucket *bucket = find(size, /*create=*/false);
    if (!bucket || !bucket->head)
      return nullptr;
    Header *block = bucket->head;
    bucket->head = block->next;
    return block;
  }

  /// False when the table is full (the caller frees the block).
  bool put(Header *block) {
    Bucket *bucket = find(block->size, /*create=*/true);
    if (!bucket)
      return false;
    block->next = bucket->head;
    bucket->head = block;
    return true;
  }

private:
  struct Bucket {
    uint64_t size = 0; // 0: unused slot
    Header *head = nullptr;
  };
  static constexpr size_t kBuckets = 512; // distinct sizes per thread

  Bucket *find(uint64_t size, bool create) {
    size_t index = (size / kAlignment * 0x9E3779B97F4A7C15ull) % kBuckets;
    for (size_t probe = 0; probe < kBuckets; ++probe) {
      Bucket &bucket = buckets[(index + probe) % kBuckets];
      if (bucket.size == size)
        return &bucket;
      if (bucket.size == 0) {
        if (!create)
          return nullptr;
        bucket.size = size;
        return &bucket;
      }
    }
    return nullptr;
  }

  Bucket buckets[kBuckets];
};

ThreadCache &cache() {
  thread_local ThreadCache threadCache;
  return threadCache;
}

Header *systemBlock(uint64_t rounded) {
  auto *block = static_cast<Header *>(
      std::aligned_alloc(kAlignment, rounded + sizeof(Header)));
  if (block)
    block->size = rounded;
  return block;
}

thread_local TaskBlockCache *taskCache = nullptr;
thread_local int taskThread = 0;

} // namespace

struct TaskBlockCache::Blocks {
  /// The blocks one thread released last, taken back by exact size. Each
  /// on its own cache line: only its thread touches it.
  struct alignas(kAlignment) Recent {
    static constexpr int kBlocks = 4;
    Header *blocks[kBlocks] = {};
  };

  explicit Blocks(int threads) : recent(threads) {}
  ~Blocks() {
    for (Recent &slots : recent)
      for (Header *block : slots.blocks)
        std::free(block);
  }

  std::vector<Recent> recent;
  std::mutex mutex;
  ThreadCache free;
};

TaskBlockCache::TaskBlockCache(int threads)
    : threadCount(threads > 0 ? threads : 1), blocks(new Blocks(threadCount)) {}

TaskBlockCache::~TaskBlockCache() { delete blocks; }

void *TaskBlockCache::take(uint64_t size, int thread) {
  if (thread >= 0 && thread < threadCount)
    for (Header *&slot : blocks->recent[thread].blocks)
      if (slot && slot->size == size) {
        Header *block = slot;
        slot = nullptr;
        return block + 1;
      }
  std::lock_guard<std::mutex> lock(blocks->mutex);
  Header *block = blocks->free.take(size);
  return block ? block + 1 : nullptr;
}

void TaskBlockCache::put(void *pointer, int thread) {
  Header *block = static_cast<Header *>(pointer) - 1;
  if (thread >= 0 && thread < threadCount)
    for (Header *&slot : blocks->recent[thread].blocks)
      if (!slot) {
        slot = block;
        return;
      }
  std::lock_guard<std::mutex> lock(blocks->mutex);
  if (!blocks->free.put(block))
    std::free(block);
}

void setStepTaskContext(TaskBlockCache *cache, int thread) {
  taskCache = cache;
  taskThread = thread;
}

void *stepAllocate(uint64_t size) {
  if (size > UINT64_MAX - 2 * kAlignment)
    return nullptr;
  uint64_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0)
    rounded = kAlignment;
  if (TaskBlockCache *shared = taskCache) {
    if (void *block = shared->take(rounded, taskThread))
      return block;
    // One for each thread of the pool: they may all run such an iteration
    // at once, in this step or a later one.
    Header *block = systemBlock(rounded);
    if (!block)
      return nullptr;
    for (int other = 1; other < shared->threads(); ++other)
      if (Header *spare = systemBlock(rounded))
        shared->put(spare + 1, /*thread=*/-1);
    return block + 1;
  }
  Header *block = cache().take(rounded);
  if (!block)
    block = systemBlock(rounded);
  return block ? block + 1 : nullptr;
}

void stepRelease(void *pointer) {
  if (!pointer)
    return;
  if (TaskBlockCache *shared = taskCache) {
    shared->put(pointer, taskThread);
    return;
  }
  Header *block = static_cast<Header *>(pointer) - 1;
  if (!cache().put(block))
    std::free(block);
}

} // namespace odt
