//===- ZeroAllocationTest.cpp - no heap allocation inside a step ----------===//
//
// This program replaces malloc and its relatives (the dynamic linker binds
// every library's calls, libodt's and the compiled model's included, to the
// executable's definitions) with versions that count calls while a flag is
// set, then forward to glibc. A session trains and evaluates the ORT MLP and
// the default model; after the first calls, TrainStep, OptimizerStep,
// LazyResetGrad and EvalStep with caller-provided outputs must not allocate.
//
//===----------------------------------------------------------------------===//

#include "CApiTestUtil.h"

#include <atomic>
#include <cerrno>
#include <malloc.h>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

} // namespace

/// Called for each counted allocation: a place for a debugger's breakpoint
/// (`break odt_counted_allocation`, then `bt`) to find where it came from.
extern "C" __attribute__((noinline)) void odt_counted_allocation() {
  allocations.fetch_add(1, std::memory_order_relaxed);
  asm volatile("" ::: "memory");
}

namespace {
void noteAllocation() {
  if (counting.load(std::memory_order_relaxed))
    odt_counted_allocation();
}
} // namespace

extern "C" {
void *malloc(size_t size) {
  noteAllocation();
  return __libc_malloc(size);
}
void *calloc(size_t count, size_t size) {
  noteAllocation();
  return __libc_calloc(count, size);
}
void *realloc(void *pointer, size_t size) {
  noteAllocation();
  return __libc_realloc(pointer, size);
}
void *memalign(size_t alignment, size_t size) {
  noteAllocation();
  return __libc_memalign(alignment, size);
}
void *aligned_alloc(size_t alignment, size_t size) {
  noteAllocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
  noteAllocation();
  void *pointer = __libc_memalign(alignment, size);
  if (!pointer)
    return ENOMEM;
  *out = pointer;
  return 0;
}
void free(void *pointer) { __libc_free(pointer); }
}

namespace {

using namespace capi;

/// Allocations made by `step`, counted between two flags.
template <typename Step> long countAllocations(Step step) {
  allocations = 0;
  counting = true;
  step();
  counting = false;
  return allocations.load();
}

/// An output tensor for each of the step's outputs, shaped by a first call.
std::vector<Value> outputsOf(OdtTrainingSession *session, const Inputs &inputs,
                             bool training) {
  size_t count = 0;
  EXPECT_TRUE(Ok(training ? OdtGetTrainingModelOutputCount(session, &count)
                          : OdtGetEvalModelOutputCount(session, &count)));
  std::vector<OdtValue *> raw(count, nullptr);
  EXPECT_TRUE(Ok(training ? OdtTrainStep(session, inputs.size(), inputs.data(),
                                         count, raw.data())
                          : OdtEvalStep(session, inputs.size(), inputs.data(),
                                        count, raw.data())));
  std::vector<Value> owned;
  for (OdtValue *value : raw)
    owned.emplace_back(value);
  return owned;
}

void expectAllocationFreeSteps(OdtTrainingSession *session,
                               const Inputs &trainInputs,
                               const Inputs &evalInputs, int threads) {
  ASSERT_TRUE(Ok(OdtSetSessionThreads(session, threads)));
  std::vector<Value> trainOutputs = outputsOf(session, trainInputs, true);
  std::vector<Value> evalOutputs = outputsOf(session, evalInputs, false);
  std::vector<OdtValue *> train, eval;
  for (Value &value : trainOutputs)
    train.push_back(value.get());
  for (Value &value : evalOutputs)
    eval.push_back(value.get());
  // First calls: the runtime sizes its buffers, the step allocator and the
  // OpenMP runtime fill up.
  for (int warmup = 0; warmup < 2; ++warmup) {
    ASSERT_TRUE(Ok(OdtTrainStep(session, trainInputs.size(), trainInputs.data(),
                                train.size(), train.data())));
    ASSERT_TRUE(Ok(OdtOptimizerStep(session)));
    ASSERT_TRUE(Ok(OdtLazyResetGrad(session)));
    ASSERT_TRUE(Ok(OdtEvalStep(session, evalInputs.size(), evalInputs.data(),
                               eval.size(), eval.data())));
  }
  for (int step = 0; step < 3; ++step) {
    bool ok = true;
    long count = countAllocations([&] {
      ok &= OdtTrainStep(session, trainInputs.size(), trainInputs.data(),
                         train.size(), train.data()) == nullptr;
    });
    EXPECT_TRUE(ok);
    EXPECT_EQ(count, 0) << "TrainStep, step " << step;
    count =
        countAllocations([&] { ok &= OdtOptimizerStep(session) == nullptr; });
    EXPECT_EQ(count, 0) << "OptimizerStep, step " << step;
    count =
        countAllocations([&] { ok &= OdtLazyResetGrad(session) == nullptr; });
    EXPECT_EQ(count, 0) << "LazyResetGrad, step " << step;
    count = countAllocations([&] {
      ok &= OdtEvalStep(session, evalInputs.size(), evalInputs.data(),
                        eval.size(), eval.data()) == nullptr;
    });
    EXPECT_EQ(count, 0) << "EvalStep, step " << step;
    EXPECT_TRUE(ok);
  }
}

TEST(ZeroAllocationTest, CountingWorks) {
  // The counter sees the library's allocations: a step that returns a new
  // output tensor allocates it.
  State state = loadState(ortData("checkpoint.ckpt"));
  Session session = createSession(state.get(), modelDir("ort_mlp"));
  ASSERT_TRUE(session);
  Inputs inputs = ortInputs();
  size_t count = 0;
  ASSERT_TRUE(Ok(OdtGetTrainingModelOutputCount(session.get(), &count)));
  std::vector<OdtValue *> raw(count, nullptr);
  long made = countAllocations([&] {
    EXPECT_TRUE(Ok(OdtTrainStep(session.get(), inputs.size(), inputs.data(),
                                raw.size(), raw.data())));
  });
  EXPECT_GT(made, 0);
  for (OdtValue *value : raw)
    OdtReleaseValue(value);
}

TEST(ZeroAllocationTest, OrtMlpSteps) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    State state = loadState(ortData("checkpoint.ckpt"));
    Session session = createSession(state.get(), modelDir("ort_mlp"));
    ASSERT_TRUE(session);
    Inputs inputs = ortInputs();
    expectAllocationFreeSteps(session.get(), inputs, inputs, threads);
  }
}

TEST(ZeroAllocationTest, DefaultModelSteps) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    State state = loadState(defaultData() + "/checkpoint");
    Session session = createSession(state.get(), defaultModel());
    ASSERT_TRUE(session);
    expectAllocationFreeSteps(session.get(), defaultInputs(true),
                              defaultInputs(false), threads);
  }
}

TEST(ZeroAllocationTest, OrtMlpStepsOnADevice) {
  // A GPU build on the mock CUDA driver (its events not recorded: the log
  // would allocate): once a step's graph is captured, TrainStep (its
  // staging copies and graph replay), OptimizerStep (left running) and
  // EvalStep allocate nothing either.
  ASSERT_EQ(setenv("ODT_CUDA_DRIVER", ODT_MOCK_CUDA_DRIVER, 1), 0);
  ASSERT_EQ(setenv("ODT_MOCK_CUDA", "log=0", 1), 0);
  State state = loadState(ortData("checkpoint.ckpt"));
  OdtTrainingSession *raw = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTrainingSessionOnDevice(
      state.get(), modelDir("ort_mlp_gpu").c_str(), "cuda:0", &raw)));
  Session session(raw);
  Inputs inputs = ortInputs();
  expectAllocationFreeSteps(session.get(), inputs, inputs, 1);
}

} // namespace
