//===- StepAllocator.h - heap buffers reused from step to step --*- C++ -*-===//
//
// Compiled models allocate their intermediate buffers on the heap inside a
// step and free them before it returns (until a static memory plan replaces
// that). The runtime routes those calls here (P_set_allocator): freed blocks
// are kept in a per-thread cache keyed by size and handed out again, so from
// the second step on a step asks the system for no memory (no malloc, no
// mmap, no page faults on fresh pages).
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

} // namespace odt

#endif // ODT_RUNTIME_STEPALLOCATOR_H
