// RUN: odt-opt %s --odt-order-constant-globals | FileCheck %s

// One-shot bufferization names constant globals by shape, numbering
// repeats, in an order that varies run to run. Afterwards they come in the
// order of their first use, and repeats are numbered in that order; the
// uses follow the names. Globals of other names keep theirs; unused ones
// come last, by name.

// CHECK:      memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_1xi1 : memref<1xi1> = dense<true>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" @state : memref<4xf32>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[5.000000e+00, 6.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_3xf32 : memref<3xf32> = dense<7.000000e+00>
// CHECK-NEXT: func.func @first
// CHECK-NEXT:   memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK-NEXT:   memref.get_global @__constant_1xi1 : memref<1xi1>
// CHECK:      func.func @second
// CHECK-NEXT:   memref.get_global @__constant_2xf32_0 : memref<2xf32>
// CHECK-NEXT:   memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK-NEXT:   memref.get_global @state : memref<4xf32>

memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
memref.global "private" constant @__constant_3xf32 : memref<3xf32> = dense<7.0>
memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[5.0, 6.0]>
memref.global "private" @state : memref<4xf32>
memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[3.0, 4.0]>
memref.global "private" constant @__constant_1xi1 : memref<1xi1> = dense<true>

func.func @first() -> (memref<2xf32>, memref<1xi1>) {
  %0 = memref.get_global @__constant_2xf32_0 : memref<2xf32>
  %1 = memref.get_global @__constant_1xi1 : memref<1xi1>
  return %0, %1 : memref<2xf32>, memref<1xi1>
}

func.func @second() -> (memref<2xf32>, memref<2xf32>, memref<4xf32>) {
  %0 = memref.get_global @__constant_2xf32 : memref<2xf32>
  %1 = memref.get_global @__constant_2xf32_0 : memref<2xf32>
  %2 = memref.get_global @state : memref<4xf32>
  return %0, %1, %2 : memref<2xf32>, memref<2xf32>, memref<4xf32>
}
