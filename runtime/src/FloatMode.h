//===- FloatMode.h - denormal floats in a step ---------------*- C++ -*-===//
//
// A step runs with denormals flushed to zero (inputs read as zero, results
// that would be denormal written as zero) unless the session keeps them.
// Without it, a value below 1.2e-38 costs a microcode assist of ~100 cycles
// per operation on x86: AdamW's moments of a parameter whose gradient has
// become tiny or zero (a dead ReLU unit, a converged batch) decay through
// that range: the MLP zoo model's optimizer step took 3.3 ms instead of 0.41
// (medians of 3000 steps on one batch of 1). TensorFlow flushes by default for
// the same reason; ONNX Runtime offers it as a session option
// (session.set_denormal_as_zero).
//
// The mode is per thread: the step's thread sets it for the call
// (ScopedFloatMode) and the thread pool runs every task of a parallel loop
// in the mode of the thread that started it.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_RUNTIME_FLOATMODE_H
#define ODT_RUNTIME_FLOATMODE_H

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace odt {

/// The calling thread's floating-point control word (MXCSR on x86, FPCR on
/// AArch64; 0 elsewhere).
inline uint64_t currentFloatMode() {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr();
#elif defined(__aarch64__)
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
#else
  return 0;
#endif
}

inline void setFloatMode(uint64_t mode) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(static_cast<unsigned>(mode));
#elif defined(__aarch64__)
  __asm__ volatile("msr fpcr, %0" : : "r"(mode));
#else
  (void)mode;
#endif
}

/// `mode` with denormals flushed to zero (x86: FTZ, bit 15, and DAZ, bit 6;
/// AArch64: FZ, bit 24) or kept (both cleared).
inline uint64_t withFlushedDenormals(uint64_t mode, bool flush) {
#if defined(__x86_64__) || defined(__i386__)
  constexpr uint64_t bits = 0x8040;
#elif defined(__aarch64__)
  constexpr uint64_t bits = uint64_t(1) << 24;
#else
  constexpr uint64_t bits = 0;
#endif
  return flush ? mode | bits : mode & ~bits;
}

/// Sets the calling thread's denormal mode for its lifetime, then restores
/// the previous control word.
class ScopedFloatMode {
public:
  explicit ScopedFloatMode(bool flushDenormals) : saved(currentFloatMode()) {
    uint64_t wanted = withFlushedDenormals(saved, flushDenormals);
    if (wanted != saved)
      setFloatMode(wanted);
  }
  ~ScopedFloatMode() {
    if (currentFloatMode() != saved)
      setFloatMode(saved);
  }
  ScopedFloatMode(const ScopedFloatMode &) = delete;
  ScopedFloatMode &operator=(const ScopedFloatMode &) = delete;

private:
  uint64_t saved;
};

} // namespace odt

#endif // ODT_RUNTIME_FLOATMODE_H
