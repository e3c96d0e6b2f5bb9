//===- BufferIdentity.h - which buffers are separate memory ----*- C++ -*-===//
//
// What the GPU loop passes may assume about the memory behind memrefs:
// different allocations, and different arguments of an entry point
// (docs/abi.md: the buffers the runtime passes never overlap; an entry
// point's arguments carry odt.role), are separate memory.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_GPU_BUFFERIDENTITY_H
#define ODT_CODEGEN_GPU_BUFFERIDENTITY_H

#include "mlir/IR/Value.h"

namespace odt {

/// The buffer `value` is a view of (through subviews, reshapes, casts).
mlir::Value getUnderlyingBuffer(mlir::Value value);

/// Whether no other buffer of the function shares `buffer`'s memory: an
/// allocation, or an entry point's argument.
bool isSeparateBuffer(mlir::Value buffer);

/// Whether `a` and `b` are views of different buffers that are each
/// separate (isSeparateBuffer): no element of one is an element of the other.
bool isSeparateMemory(mlir::Value a, mlir::Value b);

} // namespace odt

#endif // ODT_CODEGEN_GPU_BUFFERIDENTITY_H
