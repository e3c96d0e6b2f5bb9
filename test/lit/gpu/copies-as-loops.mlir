// RUN: odt-opt %s --odt-gpu-copies-as-loops | FileCheck %s
// RUN: odt-opt %s --odt-gpu-loops | FileCheck %s --check-prefix=LOOPS

// A copy into a slice of a buffer (a concatenation's half) becomes a
// linalg.copy, then a distributed loop: a kernel, not host work.
// CHECK-LABEL: func.func @into_slice
// CHECK:         %[[SLICE:.*]] = memref.subview
// CHECK-NEXT:    linalg.copy ins(%{{.*}} : memref<4x8xf32>) outs(%[[SLICE]] : memref<4x8xf32, strided<[16, 1], offset: 8>>)
// CHECK-NOT:     memref.copy
// LOOPS-LABEL: func.func @into_slice
// LOOPS:         memref.load
// LOOPS:         memref.store
// LOOPS:         processor = block_x
// LOOPS-NOT:     memref.copy
func.func @into_slice(%half: memref<4x8xf32>, %whole: memref<4x16xf32>) {
  %slice = memref.subview %whole[0, 8] [4, 8] [1, 1]
      : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %half, %slice : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  return
}
