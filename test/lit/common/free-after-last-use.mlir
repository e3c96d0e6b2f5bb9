// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-free-after-last-use))' | FileCheck %s

// Each intermediate is freed right after the last op that reads it (through
// a view here), not at the end of the function; a later allocation can
// then reuse its block.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK:         linalg.fill {{.*}} outs(%[[A]]
// CHECK:         %[[V:.*]] = memref.subview %[[A]]
// CHECK:         %[[B:.*]] = memref.alloc
// CHECK:         memref.copy %[[V]], %[[B]]
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK:         %[[C:.*]] = memref.alloc
// CHECK:         memref.copy %[[B]], %[[C]]
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK:         memref.copy %[[C]], %arg0
// CHECK-NEXT:    memref.dealloc %[[C]]
// CHECK-NEXT:    return
func.func @chain(%out: memref<4xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<8xf32>)
  %v = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %v, %b : memref<4xf32, strided<[1]>> to memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  memref.copy %b, %c : memref<4xf32> to memref<4xf32>
  memref.copy %c, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %c : memref<4xf32>
  return
}

// -----

// A use inside a loop counts at the loop; a buffer a loop yields aliases the
// loop's result.
// CHECK-LABEL: func.func @loops
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK:         %[[R:.*]] = scf.for
// CHECK:         }
// CHECK:         memref.copy %[[R]], %arg0
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    return
func.func @loops(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%it = %a) -> (memref<4xf32>) {
    memref.copy %it, %out : memref<4xf32> to memref<4xf32>
    scf.yield %it : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A buffer the function returns keeps its place (it is not freed here).
// CHECK-LABEL: func.func @escapes
// CHECK:         memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @escapes() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}
