// RUN: odt-opt %s --split-input-file --odt-outline-serial-loops | FileCheck %s

// Two per-channel loops of an entry point, the same but for their sizes,
// become calls of one function that is not inlined; it takes the buffers
// with dynamic sizes and the loop bounds as arguments (the step too, which
// LLVM folds back, every call passing 1). The scalar captured from the
// entry point is passed as well; the float constant is cloned in.
// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[A:.*]]: memref<16xf32>, %[[B:.*]]: memref<32xf32>, %[[S:.*]]: f32)
// CHECK-NOT:     scf.for
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[AV:.*]] = memref.cast %[[A]] : memref<16xf32> to memref<?xf32>
// CHECK:         call @[[LOOP:__odt_loop_[0-9]+]](%[[AV]], %[[S]], %{{.*}}, %[[C16]], %{{.*}})
// CHECK:         %[[BV:.*]] = memref.cast %[[B]] : memref<32xf32> to memref<?xf32>
// CHECK:         call @[[LOOP]](%[[BV]], %[[S]], %{{.*}}, %[[C32]], %{{.*}})
// CHECK-NOT:     call
// CHECK:       func.func private @[[LOOP]](%{{.*}}: memref<?xf32>, %{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME:    passthrough = ["noinline"]
// CHECK:         arith.constant 1.000000e+00 : f32
// CHECK:         scf.for
// CHECK-NOT:   func.func private @__odt_loop
func.func @step(%a: memref<16xf32>, %b: memref<32xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %s : f32
    %z = arith.divf %one, %y : f32
    memref.store %z, %a[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %b[%i] : memref<32xf32>
    %y = arith.addf %x, %s : f32
    %z = arith.divf %one, %y : f32
    memref.store %z, %b[%i] : memref<32xf32>
  }
  return
}

// -----

// What stays in an entry point: a loop that calls a function (a parallel
// body's call must stay where odt-pack-entry-points makes it a task) and
// a loop with results. In a parallel body, a loop stays unless it is one
// of the ops odt-parallelize-elementwise merged into the body (under its
// choice): those move.
// CHECK-LABEL: func.func @kept
// CHECK:         scf.for
// CHECK:           call @__odt_par_0
// CHECK:         scf.for
// CHECK-SAME:      iter_args
// CHECK-LABEL: func.func private @__odt_par_0
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:           scf.if
// CHECK:             call @[[MOVED:__odt_loop_[0-9]+]](
// CHECK:           } else {
// CHECK:             call @[[MOVED]](
// CHECK:       func.func private @[[MOVED]](
func.func @kept(%a: memref<8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    func.call @__odt_par_0(%c0, %c8, %a) : (index, index, memref<8xf32>) -> ()
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    %next = arith.addf %acc, %x : f32
    scf.yield %next : f32
  }
  return %sum : f32
}
func.func private @__odt_par_0(%begin: index, %end: index, %a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.for %chunk = %begin to %end step %c1 {
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i] : memref<8xf32>
      memref.store %x, %a[%i] : memref<8xf32>
    }
    %first = arith.cmpi ult, %chunk, %c1 : index
    scf.if %first {
      scf.for %i = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i] : memref<8xf32>
        %y = arith.mulf %x, %two : f32
        memref.store %y, %a[%i] : memref<8xf32>
      }
    } else {
      scf.for %i = %c4 to %c8 step %c1 {
        %x = memref.load %a[%i] : memref<8xf32>
        %y = arith.mulf %x, %two : f32
        memref.store %y, %a[%i] : memref<8xf32>
      }
    } {odt.merged_op_choice}
  }
  return
}
