//===- ThreadPool.cpp - the threads compiled parallel loops run on --------===//

#include "ThreadPool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace odt {
namespace {

thread_local ThreadPool *currentPool = nullptr;

void pause() {
#if defined(__x86_64__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Spins this many rounds for a new job before sleeping: steps call the
/// pool several times in quick succession, and a sleeping worker takes tens
/// of microseconds to wake.
constexpr int kSpinRounds = 50000;

} // namespace

ThreadPool::ThreadPool(int threads) {
  for (int index = 1; index < threads; ++index)
    workers.emplace_back([this, index] { work(index); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
    generation.fetch_add(1, std::memory_order_release);
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

void ThreadPool::runShare(int index) {
  int64_t threads = size();
  int64_t begin = count * index / threads;
  int64_t end = count * (index + 1) / threads;
  if (begin < end)
    task(context, begin, end);
}

void ThreadPool::run(ParallelTask newTask, void *newContext, int64_t newCount) {
  if (workers.empty() || newCount <= 1) {
    newTask(newContext, 0, newCount);
    return;
  }
  task = newTask;
  context = newContext;
  count = newCount;
  pending.store(static_cast<int>(workers.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex);
    generation.fetch_add(1, std::memory_order_release);
  }
  wake.notify_all();
  runShare(0);
  for (int round = 0; pending.load(std::memory_order_acquire) != 0; ++round) {
    if (round < kSpinRounds) {
      pause();
      continue;
    }
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock,
              [this] { return pending.load(std::memory_order_acquire) == 0; });
  }
}

void ThreadPool::work(int index) {
  uint64_t seen = 0;
  for (;;) {
    for (int round = 0; generation.load(std::memory_order_acquire) == seen &&
                        round < kSpinRounds;
         ++round)
      pause();
    if (generation.load(std::memory_order_acquire) == seen) {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] {
        return generation.load(std::memory_order_acquire) != seen;
      });
    }
    seen = generation.load(std::memory_order_acquire);
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopping)
        return;
    }
    runShare(index);
    if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_one();
    }
  }
}

int defaultThreadCount() {
  unsigned cores = std::thread::hardware_concurrency();
  return cores ? static_cast<int>(cores) : 1;
}

void parallelFor(ParallelTask task, void *context, int64_t count) {
  // Nested parallel loops (a task that itself dispatches) run serially: the
  // pool is installed on the calling thread only.
  ThreadPool *pool = currentPool;
  if (!pool) {
    task(context, 0, count);
    return;
  }
  currentPool = nullptr;
  pool->run(task, context, count);
  currentPool = pool;
}

ScopedPool::ScopedPool(ThreadPool *pool) : previous(currentPool) {
  currentPool = pool;
}

ScopedPool::~ScopedPool() { currentPool = previous; }

} // namespace odt
