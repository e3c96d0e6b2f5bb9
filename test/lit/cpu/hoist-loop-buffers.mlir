// RUN: odt-opt %s --split-input-file --odt-hoist-loop-buffers | FileCheck %s

// A task's loop over its iterations allocating a column panel per
// iteration: the panel is allocated once before the loop and freed after
// it; a buffer of an inner loop moves out of every loop whose iterations run
// in order, and stops at a parallel loop's body.
// CHECK-LABEL: func.func @panel_per_iteration
// CHECK:         %[[PANEL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<288x32xf32>
// CHECK-NEXT:    scf.for
// CHECK-NOT:       memref.alloc
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%[[PANEL]] :
// CHECK-NOT:       memref.dealloc
// CHECK:           }
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[PANEL]]
// CHECK-NEXT:    return
func.func @panel_per_iteration(%begin: index, %end: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %panel = memref.alloc() {alignment = 64 : i64} : memref<288x32xf32>
      linalg.fill ins(%zero : f32) outs(%panel : memref<288x32xf32>)
      %v = memref.load %panel[%j, %j] : memref<288x32xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      memref.dealloc %panel : memref<288x32xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @inside_a_parallel_loop
// CHECK:         scf.parallel
// CHECK-NEXT:      %[[PANEL:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:      scf.for
// CHECK:           }
// CHECK-NEXT:      memref.dealloc %[[PANEL]]
func.func @inside_a_parallel_loop(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c4 step %c1 {
      %panel = memref.alloc() : memref<16xf32>
      memref.store %zero, %panel[%j] : memref<16xf32>
      %v = memref.load %panel[%j] : memref<16xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      memref.dealloc %panel : memref<16xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Left where they are: a size computed in the loop, a buffer the loop
// yields, a buffer freed in a nested block, and one never freed.
// CHECK-LABEL: func.func @left_in_place
// CHECK:         scf.for %[[I:[a-z0-9]+]] =
// CHECK-NEXT:      %[[SIZE:.*]] = arith.addi %[[I]]
// CHECK-NEXT:      %[[SIZED:.*]] = memref.alloc(%[[SIZE]])
// CHECK-NEXT:      memref.dealloc %[[SIZED]]
// CHECK-NEXT:      %[[YIELDED:.*]] = memref.alloc() : memref<8xf32>
// CHECK:           %[[NESTED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.dealloc %[[NESTED]]
// CHECK:           memref.alloc() : memref<2xf32>
// CHECK:           scf.yield %[[YIELDED]]
func.func @left_in_place(%n: index, %first: memref<8xf32>, %flag: i1) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%previous = %first) -> (memref<8xf32>) {
    %size = arith.addi %i, %c1 : index
    %sized = memref.alloc(%size) : memref<?xf32>
    memref.dealloc %sized : memref<?xf32>
    %yielded = memref.alloc() : memref<8xf32>
    memref.dealloc %previous : memref<8xf32>
    %nested = memref.alloc() : memref<4xf32>
    scf.if %flag {
      memref.dealloc %nested : memref<4xf32>
    }
    %kept = memref.alloc() : memref<2xf32>
    scf.yield %yielded : memref<8xf32>
  }
  return %last : memref<8xf32>
}
