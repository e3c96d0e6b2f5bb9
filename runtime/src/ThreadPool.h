//===- ThreadPool.h - the threads compiled parallel loops run on -*- C++
//-*-===//
//
// A compiled model calls its parallel hook (P_set_parallel) with a task and
// an iteration count; the runtime's hook splits [0, count) into one
// contiguous range per thread of the pool of the session whose step is
// running on the calling thread, runs the first range itself and waits for
// the others. The workers are created with the pool (never inside a step),
// spin briefly between tasks and then sleep. Dispatching allocates nothing.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_RUNTIME_THREADPOOL_H
#define ODT_RUNTIME_THREADPOOL_H

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
  /// Runs task(context, begin, end) over [0, count) split across the pool.
  void run(ParallelTask task, void *context, int64_t count);

private:
  void work(int index);
  void runShare(int index);

  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  // The current job; written by run() before `generation` is bumped.
  ParallelTask task = nullptr;
  void *context = nullptr;
  int64_t count = 0;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> pending{0};
  bool stopping = false;
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
