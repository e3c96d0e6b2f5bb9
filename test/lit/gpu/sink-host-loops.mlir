// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-sink-host-loops))' | FileCheck %s

// An embedding gradient: a host loop over the tokens, each reading its id
// and adding its row of dY into the table's row, through a temporary that
// passed the sum between two fused loops. The loop moves inside the
// parallel loop over the row's elements: one kernel, each thread walking
// the tokens in order (the CPU's order: the same sums), the ids read on
// the device, the temporary gone.
// CHECK-LABEL: func.func @embedding_gradient
// CHECK-NOT:     memref.alloc
// CHECK:         scf.parallel (%[[D:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT:      scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:        %[[ID:.*]] = memref.load %{{.*}}[%[[T]]] : memref<?xi64>
// CHECK:             %[[ROW:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [1, 8] [1, 1]
// CHECK:             %[[OLD:.*]] = memref.load %[[ROW]][%[[D]]]
// CHECK:             %[[SUM:.*]] = arith.addf %[[OLD]],
// CHECK-NEXT:        memref.store %[[SUM]], %[[ROW]][%[[D]]]
// CHECK-NOT:         memref.alloc
// CHECK:           }
// CHECK:           scf.reduce
func.func @embedding_gradient(%ids: memref<?xi64> {odt.role = "user_input"},
                              %dy: memref<?x8xf32> {odt.role = "user_input"},
                              %table: memref<100x8xf32> {odt.role = "gradient_buffer"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c99 = arith.constant 99 : index
  %n = memref.dim %ids, %c0 : memref<?xi64>
  scf.for %t = %c0 to %n step %c1 {
    %raw = memref.load %ids[%t] : memref<?xi64>
    %id = arith.index_cast %raw : i64 to index
    %row = arith.minsi %id, %c99 : index
    %temp = memref.alloc() : memref<8xf32>
    %dst = memref.subview %table[%row, 0] [1, 8] [1, 1] : memref<100x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    %src = memref.subview %dy[%t, 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    scf.parallel (%d) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %dst[%d] : memref<8xf32, strided<[1], offset: ?>>
      %b = memref.load %src[%d] : memref<8xf32, strided<[1], offset: ?>>
      %s = arith.addf %a, %b : f32
      memref.store %s, %temp[%d] : memref<8xf32>
      %r = memref.load %temp[%d] : memref<8xf32>
      memref.store %r, %dst[%d] : memref<8xf32, strided<[1], offset: ?>>
      scf.reduce
    }
    memref.dealloc %temp : memref<8xf32>
  }
  return
}

// -----

// Every element writes one place picked by the token (a scalar sum per
// token): two elements would meet in the sunk loop's order. It stays.
// CHECK-LABEL: func.func @shared_element
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK:           scf.parallel
func.func @shared_element(%ids: memref<?xindex> {odt.role = "user_input"},
                          %out: memref<100xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %ids, %c0 : memref<?xindex>
  scf.for %t = %c0 to %n step %c1 {
    %id = memref.load %ids[%t] : memref<?xindex>
    scf.parallel (%d) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %out[%id] : memref<100xf32>
      %s = arith.addf %a, %one : f32
      memref.store %s, %out[%id] : memref<100xf32>
      scf.reduce
    }
  }
  return
}

// -----

// The index read before the kernel comes from a buffer the kernel writes:
// moved inside, a thread could read another thread's write. It stays.
// CHECK-LABEL: func.func @reads_what_it_writes
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK:           scf.parallel
func.func @reads_what_it_writes(%table: memref<100x8xf32> {odt.role = "gradient_buffer"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  scf.for %t = %c0 to %c4 step %c1 {
    %v = memref.load %table[%t, %c0] : memref<100x8xf32>
    %row = arith.fptosi %v : f32 to i32
    %r = arith.index_cast %row : i32 to index
    scf.parallel (%d) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %table[%r, %d] : memref<100x8xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %table[%r, %d] : memref<100x8xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A view whose offset in the element's dim moves with the token (a
// sliding window): elements of different threads overlap across tokens.
// It stays.
// CHECK-LABEL: func.func @sliding_window
// CHECK:         scf.for
// CHECK:           scf.parallel
func.func @sliding_window(%out: memref<64xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %c8 step %c1 {
    %window = memref.subview %out[%t] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    scf.parallel (%d) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %window[%d] : memref<8xf32, strided<[1], offset: ?>>
      %s = arith.addf %a, %one : f32
      memref.store %s, %window[%d] : memref<8xf32, strided<[1], offset: ?>>
      scf.reduce
    }
  }
  return
}

// -----

// A parallel loop whose bounds the token decides cannot go outside. It
// stays.
// CHECK-LABEL: func.func @bounds_from_the_loop
// CHECK:         scf.for
// CHECK:           scf.parallel
func.func @bounds_from_the_loop(%out: memref<8x8xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %c8 step %c1 {
    scf.parallel (%d) = (%c0) to (%t) step (%c1) {
      memref.store %one, %out[%t, %d] : memref<8x8xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A position embedding's gradient reads its positions from a constant
// global: nothing writes it, so the loop moves in as well.
// CHECK-LABEL: func.func @position_embedding_gradient
// CHECK:         scf.parallel
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.load %{{.*}}[%{{.*}}] : memref<4xi64>
memref.global "private" constant @positions : memref<4xi64> = dense<[0, 1, 2, 3]>
func.func @position_embedding_gradient(%dy: memref<4x8xf32> {odt.role = "user_input"},
                                       %table: memref<16x8xf32> {odt.role = "gradient_buffer"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %positions = memref.get_global @positions : memref<4xi64>
  scf.for %t = %c0 to %c4 step %c1 {
    %raw = memref.load %positions[%t] : memref<4xi64>
    %row = arith.index_cast %raw : i64 to index
    scf.parallel (%d) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %table[%row, %d] : memref<16x8xf32>
      %b = memref.load %dy[%t, %d] : memref<4x8xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %table[%row, %d] : memref<16x8xf32>
      scf.reduce
    }
  }
  return
}
