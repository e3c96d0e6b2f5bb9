//===- ThreadPool.cpp - the threads compiled parallel loops run on --------===//

#include "ThreadPool.h"
#include "FloatMode.h"

#include <algorithm>

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

/// Rounds of pause between tasks, then rounds of yielding the core, before
/// sleeping: steps call the pool several times in quick succession, and a
/// sleeping worker takes tens of microseconds to wake; yielding lets the
/// caller run when the cores are shared with other work.
constexpr int kPauseRounds = 4000;
constexpr int kSpinRounds = 20000;

void backOff(int round) {
  if (round < kPauseRounds)
    pause();
  else
    std::this_thread::yield();
}

} // namespace

// ticket = job number << 16 | chunks of that job.
static uint64_t jobOf(uint64_t ticket) { return ticket >> 16; }
static int64_t chunksOf(uint64_t ticket) {
  return static_cast<int64_t>(ticket & 0xffff);
}

ThreadPool::ThreadPool(int threads)
    : claims(std::max(threads, 1) * kChunksPerThread),
      taskBlocks(std::max(threads, 1)) {
  for (std::atomic<uint64_t> &claim : claims)
    claim.store(0, std::memory_order_relaxed);
  for (int index = 1; index < threads; ++index)
    workers.emplace_back([this, index] { work(index); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping.store(true, std::memory_order_release);
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

void ThreadPool::sweep(uint64_t seen, int thread) {
  // What the tasks allocate comes from the pool's shared block cache.
  setStepTaskContext(&taskBlocks, thread);
  // Tasks run in the float mode of the job (read once a chunk is claimed,
  // when the job's fields are this job's); the thread's own is restored.
  uint64_t ownMode = currentFloatMode(), jobMode = ownMode;
  bool modeSet = false;
  uint64_t job = jobOf(seen);
  int64_t chunks = chunksOf(seen);
  // The thread's own run of chunks comes first.
  int64_t home = thread * chunks / size();
  for (int64_t step = 0; step < chunks; ++step) {
    int64_t chunk = (home + step) % chunks;
    // Job numbers only grow: a claim marked by a later job means this one
    // is long over (every chunk of it was claimed), so nothing is taken.
    uint64_t previous = claims[chunk].load(std::memory_order_relaxed);
    bool claimed = false;
    while (previous < job && !claimed)
      claimed = claims[chunk].compare_exchange_weak(
          previous, job, std::memory_order_acq_rel, std::memory_order_relaxed);
    if (!claimed)
      continue;
    // The job cannot end (and be replaced) before this chunk is finished,
    // so its fields are this job's; the ticket's release made them visible.
    if (!modeSet) {
      jobMode = floatMode.load(std::memory_order_relaxed);
      if (jobMode != ownMode)
        setFloatMode(jobMode);
      modeSet = true;
    }
    int64_t total = count.load(std::memory_order_relaxed);
    task.load(std::memory_order_relaxed)(
        context.load(std::memory_order_relaxed), total * chunk / chunks,
        total * (chunk + 1) / chunks);
    if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_one();
    }
  }
  if (jobMode != ownMode)
    setFloatMode(ownMode);
  setStepTaskContext(nullptr);
}

void ThreadPool::run(ParallelTask newTask, void *newContext, int64_t newCount) {
  if (workers.empty() || newCount <= 1) {
    newTask(newContext, 0, newCount);
    return;
  }
  int64_t chunks = std::min<int64_t>(newCount, size() * kChunksPerThread);
  task.store(newTask, std::memory_order_relaxed);
  context.store(newContext, std::memory_order_relaxed);
  count.store(newCount, std::memory_order_relaxed);
  floatMode.store(currentFloatMode(), std::memory_order_relaxed);
  finished.store(0, std::memory_order_relaxed);
  uint64_t job = jobOf(ticket.load(std::memory_order_relaxed)) + 1;
  uint64_t announced = job << 16 | static_cast<uint64_t>(chunks);
  {
    std::lock_guard<std::mutex> lock(mutex);
    ticket.store(announced, std::memory_order_release);
  }
  wake.notify_all();
  sweep(announced, 0);
  for (int round = 0; finished.load(std::memory_order_acquire) != chunks;
       ++round) {
    if (round < kSpinRounds) {
      backOff(round);
      continue;
    }
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] {
      return finished.load(std::memory_order_acquire) == chunks;
    });
  }
}

void ThreadPool::work(int index) {
  uint64_t lastJob = 0;
  for (;;) {
    uint64_t seen = ticket.load(std::memory_order_acquire);
    for (int round = 0; jobOf(seen) == lastJob; ++round) {
      if (stopping.load(std::memory_order_acquire))
        return;
      if (round < kSpinRounds) {
        backOff(round);
      } else {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] {
          return stopping.load(std::memory_order_acquire) ||
                 jobOf(ticket.load(std::memory_order_acquire)) != lastJob;
        });
      }
      seen = ticket.load(std::memory_order_acquire);
    }
    lastJob = jobOf(seen);
    sweep(seen, index);
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
