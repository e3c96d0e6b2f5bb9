// RUN: odt-opt %s --split-input-file --odt-expand-strided-copies | FileCheck %s
// RUN: odt-opt %s --split-input-file --odt-expand-strided-copies --expand-strided-metadata | FileCheck %s --check-prefix=ESM

// A copy out of a slice at a run-time offset becomes linalg.copy (no call to
// the runner library's memrefCopy); a contiguous copy stays memref.copy.
// CHECK-LABEL: func.func @copies
// CHECK:         linalg.copy ins(%{{.*}} : memref<4xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<4xf32>)
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<8xf32> to memref<8xf32>
func.func @copies(%a: memref<8xf32>, %b: memref<4xf32>, %c: memref<8xf32>, %o: index) {
  %s = memref.subview %a[%o] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  memref.copy %s, %b : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
  memref.copy %a, %c : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Two dynamic dims in one group: a reinterpret_cast with row-major strides
// [m * 48, 48, 1] (expand-strided-metadata crashes on the expand itself).
// CHECK-LABEL: func.func @expand
// CHECK-SAME:    (%[[A:.*]]: memref<?x48xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK:         %[[S:.*]] = affine.apply #{{.*}}()[%[[M]]]
// CHECK:         memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[N]], %[[M]], 48], strides: [%[[S]], 48, 1]
// CHECK-NOT:     memref.expand_shape
// ESM-LABEL:   func.func @expand
// ESM-NOT:       memref.expand_shape
func.func @expand(%a: memref<?x48xf32>, %n: index, %m: index) -> memref<?x?x48xf32> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%n, %m, 48] : memref<?x48xf32> into memref<?x?x48xf32>
  return %e : memref<?x?x48xf32>
}

// -----

// A copy of a buffer onto itself is dropped.
// CHECK-LABEL: func.func @self_copy
// CHECK-NOT:     memref.copy
// CHECK-NOT:     linalg.copy
func.func @self_copy(%m: memref<8x16xf32>) {
  %s = memref.subview %m[0, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1]>>
  memref.copy %s, %s : memref<4x16xf32, strided<[16, 1]>> to memref<4x16xf32, strided<[16, 1]>>
  return
}
