//===- gemm_bench.cpp - generated matrix products against the machine -----===//
//
//   odt-gemm-bench MODEL_DIR M N K [--threads T] [--repetitions R]
//                  [--transpose-a]
//
// MODEL_DIR is a model compiled by odt-compile from the graph
// c = MatMul(a [M, K], b [K, N]), or with --transpose-a from
// c = Gemm(a [K, M], b [K, N], transA=1) (a weight gradient's product:
// activations transposed times output gradients, A read with m innermost);
// bench/run.py writes both.
// Prints one JSON line: the median time and GFLOP/s of the generated product
// (on the runtime's thread pool and step allocator, as in a training step), of
// OpenBLAS's cblas_sgemm on the same data (libopenblas.so.0 loaded at run
// time; absent: null) with the same thread count, and this machine's FMA
// peak measured by a loop of independent fused multiply-adds on each
// thread. The product is checked against a double-precision dot product
// at sampled positions before anything is timed.
//
//===----------------------------------------------------------------------===//

#include "StepAllocator.h"
#include "ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename Body> double medianSeconds(int repetitions, Body body) {
  body(); // warm-up: caches, the step allocator, the pool
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    Clock::time_point start = Clock::now();
    body();
    times.push_back(seconds(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// A 2-D memref descriptor: base, aligned, offset, sizes, strides.
struct Descriptor2D {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

Descriptor2D describe(std::vector<float> &data, int64_t rows, int64_t cols) {
  return {data.data(), data.data(), 0, {rows, cols}, {cols, 1}};
}

#if defined(__x86_64__)
/// 24 independent FMA chains of 16 floats: enough to cover the latency of
/// two FMA units. Returns the flops done.
__attribute__((target("avx512f"))) double fmaLoopAvx512(int64_t rounds) {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i)
    acc[i] = _mm512_set1_ps(1.0f + i * 1e-3f);
  __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r)
    for (int i = 0; i < 24; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  float sink = 0;
  for (int i = 0; i < 24; ++i)
    sink += _mm512_reduce_add_ps(acc[i]);
  asm volatile("" ::"x"(sink));
  return 2.0 * 16 * 24 * double(rounds);
}

__attribute__((target("avx2,fma"))) double fmaLoopAvx2(int64_t rounds) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps(1.0f + i * 1e-3f);
  __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r)
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  alignas(32) float lanes[8];
  float sink = 0;
  for (int i = 0; i < 12; ++i) {
    _mm256_store_ps(lanes, acc[i]);
    sink += lanes[0];
  }
  asm volatile("" ::"x"(sink));
  return 2.0 * 8 * 12 * double(rounds);
}
#endif

double fmaLoopScalar(int64_t rounds) {
  float acc[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (int64_t r = 0; r < rounds; ++r)
    for (float &a : acc)
      a = std::fma(a, 0.999999f, 1e-7f);
  float sink = 0;
  for (float a : acc)
    sink += a;
  asm volatile("" ::"x"(sink));
  return 2.0 * 8 * double(rounds);
}

double fmaLoop(int64_t rounds) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return fmaLoopAvx512(rounds);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return fmaLoopAvx2(rounds);
#endif
  return fmaLoopScalar(rounds);
}

/// GFLOP/s of `threads` threads each running the FMA loop (best of 5).
double measurePeak(int threads) {
  const int64_t rounds = 20000000;
  double best = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::vector<double> flops(threads);
    Clock::time_point start = Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] { flops[t] = fmaLoop(rounds); });
    for (std::thread &worker : workers)
      worker.join();
    double total = 0;
    for (double f : flops)
      total += f;
    best = std::max(best, total / seconds(start) / 1e9);
  }
  return best;
}

using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int,
                       const float *, int, float, float *, int);
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

int usage() {
  std::fprintf(stderr, "usage: odt-gemm-bench MODEL_DIR M N K [--threads T] "
                       "[--repetitions R] [--transpose-a]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 5)
    return usage();
  std::string dir = argv[1];
  char *end = nullptr;
  int64_t m = std::strtoll(argv[2], &end, 10), n = 0, k = 0;
  if (*end || m <= 0)
    return usage();
  n = std::strtoll(argv[3], &end, 10);
  if (*end || n <= 0)
    return usage();
  k = std::strtoll(argv[4], &end, 10);
  if (*end || k <= 0)
    return usage();
  int threads = 1, repetitions = 10;
  bool transposeA = false;
  for (int i = 5; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--transpose-a") {
      transposeA = true;
    } else if ((arg == "--threads" || arg == "--repetitions") && i + 1 < argc) {
      int value = std::atoi(argv[++i]);
      if (value <= 0)
        return usage();
      (arg == "--threads" ? threads : repetitions) = value;
    } else {
      return usage();
    }
  }

  std::string library = dir + "/libmodel.so";
  void *model = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model) {
    std::fprintf(stderr, "odt-gemm-bench: %s\n", dlerror());
    return 1;
  }
  using Entry = void (*)(void **);
  auto train = reinterpret_cast<Entry>(dlsym(model, "odt_model_train"));
  auto setAllocator =
      reinterpret_cast<void (*)(void *(*)(uint64_t), void (*)(void *))>(
          dlsym(model, "odt_model_set_allocator"));
  auto setParallel =
      reinterpret_cast<void (*)(void (*)(odt::ParallelTask, void *, int64_t))>(
          dlsym(model, "odt_model_set_parallel"));
  if (!train || !setAllocator || !setParallel) {
    std::fprintf(stderr, "odt-gemm-bench: %s is not an odt model\n",
                 library.c_str());
    return 1;
  }
  setAllocator(odt::stepAllocate, odt::stepRelease);
  setParallel(odt::parallelFor);
  odt::ThreadPool pool(threads);

  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f), ref(m * n, 0.0f);
  for (float &x : a)
    x = uniform(random);
  for (float &x : b)
    x = uniform(random);
  // a[i, p] of the product is a[i * k + p], or a[p * m + i] when stored
  // transposed.
  auto elementOfA = [&](int64_t i, int64_t p) {
    return transposeA ? a[p * m + i] : a[i * k + p];
  };
  Descriptor2D da = transposeA ? describe(a, k, m) : describe(a, m, k),
               db = describe(b, k, n), dc = describe(c, m, n);
  void *args[] = {&da, &db, &dc};
  auto run = [&] {
    odt::ScopedPool scope(&pool);
    train(args);
  };
  run();
  // Sampled check against a double-precision dot product.
  double worst = 0;
  for (int sample = 0; sample < 256; ++sample) {
    int64_t i = random() % m, j = random() % n;
    double exact = 0, magnitude = 0;
    for (int64_t p = 0; p < k; ++p) {
      exact += double(elementOfA(i, p)) * b[p * n + j];
      magnitude += std::fabs(double(elementOfA(i, p)) * b[p * n + j]);
    }
    worst = std::max(worst, std::fabs(c[i * n + j] - exact) / magnitude);
  }
  if (worst > 1e-5) {
    std::fprintf(stderr, "odt-gemm-bench: wrong product (relative error %g)\n",
                 worst);
    return 1;
  }

  double flops = 2.0 * double(m) * double(n) * double(k);
  double odtSeconds = medianSeconds(repetitions, run);

  std::string blas = "null";
  if (void *openblas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL)) {
    auto sgemm = reinterpret_cast<Sgemm>(dlsym(openblas, "cblas_sgemm"));
    auto setThreads = reinterpret_cast<void (*)(int)>(
        dlsym(openblas, "openblas_set_num_threads"));
    if (sgemm) {
      if (setThreads)
        setThreads(threads);
      double blasSeconds = medianSeconds(repetitions, [&] {
        sgemm(kRowMajor, transposeA ? kTrans : kNoTrans, kNoTrans, int(m),
              int(n), int(k), 1.0f, a.data(), transposeA ? int(m) : int(k),
              b.data(), int(n), 0.0f, ref.data(), int(n));
      });
      blas = std::to_string(flops / blasSeconds / 1e9);
    }
  }
  double peak = measurePeak(threads);
  std::printf("{\"m\": %lld, \"n\": %lld, \"k\": %lld, \"transpose_a\": %s, "
              "\"threads\": %d, "
              "\"odt_ms\": %.4f, \"odt_gflops\": %.2f, \"openblas_gflops\": "
              "%s, \"peak_gflops\": %.2f, \"max_relative_error\": %.3g}\n",
              (long long)m, (long long)n, (long long)k,
              transposeA ? "true" : "false", threads, odtSeconds * 1e3,
              flops / odtSeconds / 1e9, blas.c_str(), peak, worst);
  return 0;
}
