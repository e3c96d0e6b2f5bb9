//===- ThreadPool.h - the threads compiled parallel loops run on -*- C++
//-*-===//
//
// A compiled model calls its parallel hook (P_set_parallel) with a task and
// an iteration count; the runtime's hook cuts [0, count) into
// kChunksPerThread contiguous chunks per thread of the pool of the session
// whose step is running on the calling thread. Each thread claims its own
// run of chunks first, in order (the same part of a tensor every step, so
// it stays in that core's cache), then any chunk nobody has claimed yet: a
// worker the OS has not scheduled (the core is busy with another process)
// leaves its chunks to the caller instead of making it wait, and a thread
// on a core that runs slower for a while (another tenant's work on a
// shared machine, a little core) leaves its last chunks to the others. The
// workers are created with the pool (never inside a step), spin briefly between
// tasks (yielding the core after a while) and then sleep. Dispatching allocates
// nothing.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_RUNTIME_THREADPOOL_H
#define ODT_RUNTIME_THREADPOOL_H

#include "StepAllocator.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace odt {

using ParallelTask = void (*)(void *context, int64_t begin, int64_t end);

class ThreadPool {
public:
  /// A pool of `threads` threads in all: the caller and threads - 1 workers.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return static_cast<int>(workers.size()) + 1; }

  /// Chunks of a loop per thread (fewer when the loop has fewer
  /// iterations). One chunk per thread made a 2-thread step as slow as its
  /// slower core: on the shared 2-vCPU machine one core often ran 1.5x
  /// slower for a second, and the MLP at batch 256 gained 1.3-1.45x from
  /// the second thread instead of ~2x.
  static constexpr int kChunksPerThread = 4;
  /// Runs task(context, begin, end) over [0, count) split across the pool.
  void run(ParallelTask task, void *context, int64_t count);

private:
  void work(int index);
  /// Claims and runs the chunks of the job announced by `seen` that nobody
  /// has claimed, on the pool's thread `thread` (0: the caller), starting
  /// with the first chunk of that thread's share.
  void sweep(uint64_t seen, int thread);

  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  // The current job, written by run() before the ticket that announces it.
  std::atomic<ParallelTask> task{nullptr};
  std::atomic<void *> context{nullptr};
  std::atomic<int64_t> count{0};
  // The floating-point control word of the thread that started the job
  // (denormals flushed or kept): its tasks run in that mode on every thread.
  std::atomic<uint64_t> floatMode{0};
  // Job number << 16 | number of chunks.
  std::atomic<uint64_t> ticket{0};
  // Per chunk, the number of the last job that claimed it.
  std::vector<std::atomic<uint64_t>> claims;
  std::atomic<int64_t> finished{0};
  std::atomic<bool> stopping{false};
  TaskBlockCache taskBlocks;
};

/// The number of threads when a session sets none: the machine's cores.
int defaultThreadCount();

/// The parallel hook handed to compiled models: runs on the pool installed
/// for the calling thread by ScopedPool, or serially.
void parallelFor(ParallelTask task, void *context, int64_t count);

/// Installs `pool` for parallelFor on this thread for one entry call.
class ScopedPool {
public:
  explicit ScopedPool(ThreadPool *pool);
  ~ScopedPool();

private:
  ThreadPool *previous;
};

} // namespace odt

#endif // ODT_RUNTIME_THREADPOOL_H
