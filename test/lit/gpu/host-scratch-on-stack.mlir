// RUN: odt-opt %s --odt-gpu-host-scratch-on-stack | FileCheck %s

// The lowered deallocation of buffers a loop carries keeps arrays the host
// reads and writes itself (addresses and ownership flags for
// dealloc_helper): on the host's stack, at the function's start, reused by
// each iteration; their deallocs go. A buffer a kernel reads stays an
// allocation (device memory), and so does one whose size is not static.
// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[N:.*]]: index
// CHECK:         %[[FLAGS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2xi1>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc() {alignment = 64 : i64} : memref<2xi1>
// CHECK:           %[[CAST:.*]] = memref.cast %[[FLAGS]]
// CHECK:           call @helper(%[[CAST]])
// CHECK:           memref.load %[[FLAGS]]
// CHECK-NOT:       memref.dealloc %[[FLAGS]]
// CHECK:         memref.alloc() : memref<8xf32>
// CHECK:         gpu.launch
// CHECK:         memref.alloc(%[[N]]) : memref<?xi1>
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK:         memref.alloc() : memref<2xi1>
// CHECK:         call @external
module {
  func.func private @helper(%flags: memref<?xi1>) {
    return
  }
  func.func @step(%n: index, %out: memref<8xf32>) -> i1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%last = %true) -> (i1) {
      %flags = memref.alloc() {alignment = 64 : i64} : memref<2xi1>
      memref.store %true, %flags[%c0] : memref<2xi1>
      %cast = memref.cast %flags : memref<2xi1> to memref<?xi1>
      func.call @helper(%cast) : (memref<?xi1>) -> ()
      %f = memref.load %flags[%c1] : memref<2xi1>
      memref.dealloc %flags : memref<2xi1>
      scf.yield %f : i1
    }
    %device = memref.alloc() : memref<8xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %device[%c0] : memref<8xf32>
      memref.store %v, %out[%c0] : memref<8xf32>
      gpu.terminator
    }
    memref.dealloc %device : memref<8xf32>
    %dynamic = memref.alloc(%n) : memref<?xi1>
    memref.store %true, %dynamic[%c0] : memref<?xi1>
    memref.dealloc %dynamic : memref<?xi1>
    // Only arrays of addresses and flags move: not data...
    %data = memref.alloc() : memref<4xf32>
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %data[%c0] : memref<4xf32>
    memref.dealloc %data : memref<4xf32>
    // ... nor an array given to a function outside the module.
    %given = memref.alloc() : memref<2xi1>
    %givenCast = memref.cast %given : memref<2xi1> to memref<?xi1>
    func.call @external(%givenCast) : (memref<?xi1>) -> ()
    memref.dealloc %given : memref<2xi1>
    return %r : i1
  }
  func.func private @external(memref<?xi1>)
}
