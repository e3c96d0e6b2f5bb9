// The runtime's thread pool: every iteration of a parallel loop runs exactly
// once, whatever the count and the number of threads, over many jobs in a
// row (claims are tracked per job number, so a slow thread must never run a
// chunk of a job that is over); a pool of one thread and nested loops run
// on the calling thread; a thread stuck in one chunk leaves its other chunks
// to the others; a loop's tasks run in the float mode (denormals flushed or
// kept) of the thread that started it, on every thread.

#include "ThreadPool.h"
#include "FloatMode.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace {

struct Visits {
  std::vector<std::atomic<int>> counts;
  explicit Visits(int64_t n) : counts(n) {
    for (auto &count : counts)
      count.store(0);
  }
};

void visit(void *context, int64_t begin, int64_t end) {
  auto *visits = static_cast<Visits *>(context);
  for (int64_t i = begin; i < end; ++i)
    visits->counts[i].fetch_add(1);
}

TEST(ThreadPoolTest, EveryIterationRunsOnce) {
  for (int threads : {1, 2, 3, 8}) {
    odt::ThreadPool pool(threads);
    for (int64_t count : {0, 1, 2, 3, 7, 8, 9, 64, 1000}) {
      Visits visits(count);
      pool.run(visit, &visits, count);
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(visits.counts[i].load(), 1)
            << "threads " << threads << ", count " << count << ", i " << i;
    }
  }
}

TEST(ThreadPoolTest, ManyJobsInARow) {
  odt::ThreadPool pool(4);
  for (int job = 0; job < 20000; ++job) {
    int64_t count = 1 + job % 13;
    Visits visits(count);
    pool.run(visit, &visits, count);
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(visits.counts[i].load(), 1) << "job " << job << ", i " << i;
  }
}

struct Threads {
  std::mutex mutex;
  std::set<std::thread::id> seen;
};

void recordThread(void *context, int64_t, int64_t) {
  auto *threads = static_cast<Threads *>(context);
  std::lock_guard<std::mutex> lock(threads->mutex);
  threads->seen.insert(std::this_thread::get_id());
}

TEST(ThreadPoolTest, OneThreadRunsOnTheCaller) {
  odt::ThreadPool pool(1);
  Threads threads;
  pool.run(recordThread, &threads, 16);
  ASSERT_EQ(threads.seen.size(), 1u);
  EXPECT_EQ(*threads.seen.begin(), std::this_thread::get_id());
}

struct SlowWorker {
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> workerStarted{false};
  std::atomic<int> byCaller{0}, byWorker{0};
};

// The worker's first iteration takes 200 ms (its core busy with something
// else); the caller waits until the worker has started.
void slowWorkerTask(void *context, int64_t begin, int64_t end) {
  auto *state = static_cast<SlowWorker *>(context);
  if (std::this_thread::get_id() != state->caller) {
    if (!state->workerStarted.exchange(true))
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    state->byWorker.fetch_add(static_cast<int>(end - begin));
    return;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!state->workerStarted.load() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  state->byCaller.fetch_add(static_cast<int>(end - begin));
}

TEST(ThreadPoolTest, ASlowThreadLeavesItsLastChunks) {
  // 2 threads, 8 iterations: 4 chunks per thread. While the worker is stuck
  // in its first chunk (one iteration), the caller runs its own 4 and then
  // the worker's other 3; with one chunk per thread it would wait for the
  // worker's 4.
  odt::ThreadPool pool(2);
  SlowWorker state;
  pool.run(slowWorkerTask, &state, 8);
  ASSERT_TRUE(state.workerStarted.load()) << "the worker never ran";
  EXPECT_EQ(state.byCaller.load() + state.byWorker.load(), 8);
  EXPECT_EQ(state.byWorker.load(), 1);
  EXPECT_EQ(state.byCaller.load(), 7);
}

struct Nested {
  Visits inner{10};
  std::atomic<int> outer{0};
};

void runNested(void *context, int64_t begin, int64_t end) {
  auto *nested = static_cast<Nested *>(context);
  nested->outer.fetch_add(static_cast<int>(end - begin));
  // A task that dispatches again: parallelFor sees no pool on this thread
  // (workers have none; the caller's is lifted while it runs) and runs the
  // inner loop inline instead of waiting on the pool it is part of.
  for (int64_t outer = begin; outer < end; ++outer) {
    Visits inner(10);
    odt::parallelFor(visit, &inner, 10);
    for (int64_t i = 0; i < 10; ++i)
      nested->inner.counts[i].fetch_add(inner.counts[i].load());
  }
}

TEST(ThreadPoolTest, NestedLoopsRunInline) {
  odt::ThreadPool pool(2);
  odt::ScopedPool scope(&pool);
  Nested nested;
  odt::parallelFor(runNested, &nested, 4);
  EXPECT_EQ(nested.outer.load(), 4);
  for (int64_t i = 0; i < 10; ++i)
    EXPECT_EQ(nested.inner.counts[i].load(), 4);
}

} // namespace

namespace {

// Inside a pool's tasks, blocks come from one cache shared by the pool's
// threads; a size it lacks is asked from the system once per thread of the
// pool, so any thread running an iteration later finds its block there.
/// Chunk 1 records the mode and thread it ran on; chunk 0 (the caller's
/// first) waits until chunk 1 has run, so a worker must have run it.
struct ModeProbe {
  std::atomic<bool> secondDone{false};
  uint64_t secondMode = 0;
  std::thread::id secondThread;
};

void probeMode(void *context, int64_t begin, int64_t) {
  auto *probe = static_cast<ModeProbe *>(context);
  if (begin == 0) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!probe->secondDone.load(std::memory_order_acquire) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    return;
  }
  probe->secondMode = odt::currentFloatMode();
  probe->secondThread = std::this_thread::get_id();
  probe->secondDone.store(true, std::memory_order_release);
}

TEST(ThreadPoolTest, TasksRunInTheCallersFloatMode) {
  odt::ThreadPool pool(2); // created in the default mode: denormals kept
  uint64_t original = odt::currentFloatMode();
  for (bool flush : {true, false, true}) {
    ModeProbe probe;
    {
      odt::ScopedFloatMode mode(flush);
      pool.run(probeMode, &probe, 2);
      EXPECT_EQ(odt::currentFloatMode(),
                odt::withFlushedDenormals(original, flush));
    }
    ASSERT_TRUE(probe.secondDone.load());
    EXPECT_NE(probe.secondThread, std::this_thread::get_id())
        << "chunk 1 must have run on the worker";
    EXPECT_EQ(probe.secondMode, odt::withFlushedDenormals(original, flush))
        << "flush " << flush;
    EXPECT_EQ(odt::currentFloatMode(), original)
        << "the caller's mode is restored";
  }
#if defined(__x86_64__)
  // FTZ and DAZ really change what the arithmetic gives.
  volatile float denormal = 1e-39f;
  {
    odt::ScopedFloatMode mode(true);
    EXPECT_EQ(denormal * 1.0f, 0.0f);
  }
  EXPECT_EQ(denormal * 1.0f, 1e-39f);
#endif
}

TEST(StepAllocatorTest, TaskBlocksAreSharedByThePoolsThreads) {
  odt::TaskBlockCache shared(3);
  constexpr uint64_t kOddSize = 123 * 64 + 8; // a size no other test uses
  constexpr uint64_t kRounded = 124 * 64;
  constexpr int kSharedOnly = -1; // no thread's recent blocks
  odt::setStepTaskContext(&shared, 0);
  void *first = odt::stepAllocate(kOddSize);
  odt::setStepTaskContext(nullptr);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  // Two spares, for the two other threads.
  void *spare1 = shared.take(kRounded, kSharedOnly);
  void *spare2 = shared.take(kRounded, kSharedOnly);
  EXPECT_NE(spare1, nullptr);
  EXPECT_NE(spare2, nullptr);
  EXPECT_EQ(shared.take(kRounded, kSharedOnly), nullptr);
  shared.put(spare1, kSharedOnly);
  shared.put(spare2, kSharedOnly);

  // Another thread of the pool in a task takes a spare; what it releases
  // stays in the pool's cache, among that thread's recent blocks: it takes
  // it back next, and the shared lists do not hold it.
  void *released = nullptr;
  std::thread other([&] {
    odt::setStepTaskContext(&shared, 1);
    void *block = odt::stepAllocate(kOddSize);
    EXPECT_TRUE(block == spare1 || block == spare2);
    odt::stepRelease(block);
    EXPECT_EQ(odt::stepAllocate(kOddSize), block) << "its own, taken back";
    odt::stepRelease(block);
    released = block;
    odt::setStepTaskContext(nullptr);
  });
  other.join();
  void *left = shared.take(kRounded, kSharedOnly);
  EXPECT_TRUE(left != released && (left == spare1 || left == spare2));
  EXPECT_EQ(shared.take(kRounded, kSharedOnly), nullptr);
  shared.put(left, kSharedOnly);
  odt::setStepTaskContext(&shared, 0);
  odt::stepRelease(first);
  odt::setStepTaskContext(nullptr);
  // Every block is found again by the thread that holds it or in the
  // shared lists: thread 0's, thread 1's, the spare.
  EXPECT_EQ(shared.take(kRounded, 0), first);
  EXPECT_EQ(shared.take(kRounded, 1), released);
  EXPECT_EQ(shared.take(kRounded, 2), left);
  EXPECT_EQ(shared.take(kRounded, 2), nullptr);

  // A thread keeps a few recent blocks; the ones beyond go to the shared
  // lists, where any thread finds them.
  std::vector<void *> blocks{first, released, left};
  for (int i = 0; i < 3; ++i)
    blocks.push_back(odt::stepAllocate(kOddSize + 64 * (i + 1)));
  for (void *block : blocks)
    shared.put(block, 0);
  // Thread 0 keeps the first four (three of kRounded, one of 64 more);
  // the two larger ones are shared.
  for (int i = 0; i < 4; ++i) {
    void *block = shared.take(kRounded + 64 * i, kSharedOnly);
    EXPECT_EQ(block != nullptr, i >= 2) << i;
    if (block)
      shared.put(block, kSharedOnly);
  }
  // Left in the cache: freed with it (a leak here shows under ASan).

  // Outside a task nothing is shared.
  void *plain = odt::stepAllocate(kOddSize + 64);
  EXPECT_EQ(shared.take(kRounded + 64, kSharedOnly), nullptr);
  odt::stepRelease(plain);
}

} // namespace
