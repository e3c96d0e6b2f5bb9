// RUN: odt-opt %s --odt-plan-arena | FileCheck %s

// Three buffers: %a (64 B) and %b (64*batch B) live together; %c starts
// after %a is freed, so it takes %a's place; the one inside the loop and
// the one sized by data keep their allocations. Offsets and the arena size
// are formulas of `batch`, read from the argument that names it.
// CHECK: module attributes {odt.arena = {sized_by_data = "0 bytes for 0 buffers (+1 allocated apart)", step = "64*batch + 64 bytes for 3 buffers (+1 allocated apart)"}}
// CHECK-LABEL: func.func @step
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[BATCH:.*]] = memref.dim %arg0, %[[C0]]
// CHECK:         %[[BYTES:.*]] = arith.addi
// CHECK:         %[[ARENA:.*]] = memref.alloc(%[[BYTES]]) {alignment = 64 : i64} : memref<?xi8>
// The largest buffer (%b) is placed first, at 0; %a after it, at
// 64*batch; %c in %a's place once %a is dead.
// CHECK:         %[[A:.*]] = memref.view %[[ARENA]][%[[AOFF:.*]]][] : memref<?xi8> to memref<16xf32>
// CHECK:         %[[B:.*]] = memref.view %[[ARENA]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?x16xf32>
// CHECK-NOT:     memref.dealloc %[[A]]
// CHECK:         %[[C:.*]] = memref.view %[[ARENA]][%[[COFF:.*]]][] : memref<?xi8> to memref<8xf32>
// CHECK:         scf.for
// CHECK:           memref.alloc() {alignment = 64 : i64} : memref<32xf32>
// CHECK:           memref.dealloc
// CHECK-NOT:     memref.dealloc %[[C]]
// CHECK-NOT:     memref.dealloc %[[B]]
// CHECK:         memref.dealloc %[[ARENA]]
// CHECK-NEXT:    return
func.func @step(%x: memref<?x16xf32> {onnx.dims = ["batch", 16]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x16xf32>
  memref.dealloc %a : memref<16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
    memref.dealloc %t : memref<32xf32>
  }
  memref.dealloc %c : memref<8xf32>
  memref.dealloc %b : memref<?x16xf32>
  return
}

func.func @sized_by_data(%shape: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %n = memref.load %shape[%c0] : memref<1xindex>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}
