// RUN: odt-opt %s --pass-pipeline='builtin.module(finalize-memref-to-llvm{use-generic-functions=true}, convert-arith-to-llvm, convert-func-to-llvm, reconcile-unrealized-casts, odt-pack-entry-points{prefix=m})' | FileCheck %s

// Heap buffers go through the allocation hook, which returns new memory as
// malloc does: its result is marked noalias and it stays a call (not
// inlined), and the 64-byte alignment of the buffer is an offset from the
// hook's result instead of an integer turned back into a pointer, so LLVM
// knows a store into an intermediate cannot change the model's inputs.
// CHECK-LABEL: llvm.func internal @_mlir_memref_to_llvm_alloc(%{{.*}}: i64) -> (!llvm.ptr {llvm.noalias})
// CHECK-SAME:    no_inline
// CHECK-LABEL: llvm.func internal @step
// CHECK:         %[[RAW:.*]] = llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         %[[ADDRESS:.*]] = llvm.ptrtoint %[[RAW]]
// CHECK:         %[[OFFSET:.*]] = llvm.sub %{{.*}}, %[[ADDRESS]]
// CHECK:         llvm.getelementptr %[[RAW]][%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NOT:     llvm.inttoptr
func.func @step(%input: memref<16xf32>, %out: memref<16xf32>) attributes {llvm.emit_c_interface} {
  %buffer = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %input, %buffer : memref<16xf32> to memref<16xf32>
  memref.copy %buffer, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %buffer : memref<16xf32>
  return
}
