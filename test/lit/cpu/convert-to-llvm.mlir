// RUN: odt-opt %s --pass-pipeline='builtin.module(odt-convert-to-llvm,reconcile-unrealized-casts)' | FileCheck %s

// Every dialect the CPU backend has left after vector lowering becomes LLVM
// in the one conversion: an allocation calls the runtime's generic
// allocator (not malloc), an entry point keeps its C interface, branches,
// ceildivui (expanded), math and index ops are LLVM ops, and no
// unrealized cast is left for translation.
// CHECK-NOT:   builtin.unrealized_conversion_cast
// CHECK-DAG:   llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-LABEL: llvm.func @entry(
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.udiv
// CHECK:         llvm.cond_br
// CHECK:         llvm.intr.sqrt
// CHECK:         llvm.call @_mlir_memref_to_llvm_free
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_entry(
// CHECK-NOT:   builtin.unrealized_conversion_cast
// CHECK-NOT:   malloc
func.func @entry(%out: memref<?xf32>, %n: index, %k: index) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %scratch = memref.alloc(%n) : memref<?xf32>
  %chunks = arith.ceildivui %n, %k : index
  %positive = index.cmp sgt(%chunks, %c0)
  cf.cond_br %positive, ^store, ^done
^store:
  %x = memref.load %out[%c0] : memref<?xf32>
  %root = math.sqrt %x : f32
  memref.store %root, %scratch[%c0] : memref<?xf32>
  %y = memref.load %scratch[%c0] : memref<?xf32>
  memref.store %y, %out[%c0] : memref<?xf32>
  cf.br ^done
^done:
  memref.dealloc %scratch : memref<?xf32>
  return
}
