// RUN: odt-opt %s --split-input-file --odt-outline-parallel-loops | FileCheck %s

// The body of a parallel loop from 0 with step 1 moves into a function over
// [begin, end) that takes what the body uses from outside (constants are
// cloned in), called with (0, count, captured...).
// CHECK-LABEL: func.func @scale_columns
// CHECK-SAME:    (%[[X:.*]]: memref<?x64xf32>, %[[N:.*]]: index, %[[S:.*]]: f32)
// CHECK-NOT:     scf.parallel
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         call @__odt_par_0(%[[C0]], %[[N]], %[[X]], %[[S]]) : (index, index, memref<?x64xf32>, f32) -> ()
// CHECK:       func.func private @__odt_par_0(%[[BEGIN:.*]]: index, %[[END:.*]]: index, %[[XA:.*]]: memref<?x64xf32>, %[[SA:.*]]: f32)
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK:         scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]] step %{{.*}} {
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C64]]
// CHECK:             memref.load %[[XA]][%[[I]], %[[J]]]
// CHECK:             arith.mulf %{{.*}}, %[[SA]]
func.func @scale_columns(%x: memref<?x64xf32>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x64xf32>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %x[%i, %j] : memref<?x64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Two-dimensional loops and loops with a step other than 1 stay.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT:     func.func private
func.func @kept(%x: memref<8x8xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %s, %x[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c2) {
    memref.store %s, %x[%i, %c0] : memref<8x8xf32>
    scf.reduce
  }
  return
}

// -----

// Loops with identical bodies (a network's repeated blocks) share one
// function; a body that differs in a constant gets its own.
// CHECK-LABEL: func.func @repeated
// CHECK:         call @[[SHARED:__odt_par_[0-9]+]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:         call @[[SHARED]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:         call @[[OTHER:__odt_par_[0-9]+]](
// CHECK:       func.func private @[[SHARED]](
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK:       func.func private @[[OTHER]](
// CHECK:         arith.constant 3.000000e+00 : f32
// CHECK-NOT:   func.func private
func.func @repeated(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %y[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %y[%i] : memref<?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %y[%i] : memref<?xf32>
    %w = arith.mulf %v, %three : f32
    memref.store %w, %x[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
