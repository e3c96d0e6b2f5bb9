// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-fuse-row-consumers))' | FileCheck %s

// A softmax as odt-gpu-fuse-parallel-loops leaves it: a kernel over rows
// (the maximum, the sum of exponentials) and one over rows x columns (the
// division, in place). The second becomes a loop over the columns at the
// end of the first's body, its rows the first's; the allocation between
// them moves above.
// CHECK-LABEL: func.func @softmax
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK:         scf.parallel (%[[ROW:.*]]) =
// CHECK:           scf.for
// CHECK:             arith.maximumf
// CHECK:           memref.store %{{.*}}, %[[MAX:.*]][%[[ROW]]]
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:           memref.store %{{.*}}, %[[SUM:.*]][%[[ROW]]]
// CHECK:           scf.for %[[COL:.*]] = %c0 to %c128 step %c1 {
// CHECK:             memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK:             memref.load %[[MAX]][%[[ROW]]]
// CHECK:             arith.divf
// CHECK:             memref.store %{{.*}}, %arg0[%[[ROW]], %[[COL]]]
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @softmax(%x: memref<64x128xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<64xf32>
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %m = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %lowest) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %n = arith.maximumf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %m, %max[%i] : memref<64xf32>
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %r = memref.load %max[%i] : memref<64xf32>
      %d = arith.subf %v, %r : f32
      %e = math.exp %d : f32
      %n = arith.addf %acc, %e : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  %unused = memref.alloc() : memref<4xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x128xf32>
    %r = memref.load %max[%i] : memref<64xf32>
    %s = memref.load %sum[%i] : memref<64xf32>
    %d = arith.subf %v, %r : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    memref.store %q, %x[%i, %j] : memref<64x128xf32>
    scf.reduce
  }
  return
}

// -----

// An elementwise loop over rows and columns that the row kernel right after
// reads at its own row (a LayerNorm gradient's dy * gamma, then its row
// sums) goes into it, as a loop over the columns at its start.
// CHECK-LABEL: func.func @producer
// CHECK:         scf.parallel (%[[ROW:.*]]) =
// CHECK-NEXT:      scf.for %[[COL:.*]] = %c0 to %c128 step %c1 {
// CHECK:             arith.mulf
// CHECK:             memref.store %{{.*}}, %[[SCALED:.*]][%[[ROW]], %[[COL]]]
// CHECK:           scf.for {{.*}} iter_args
// CHECK:             memref.load %[[SCALED]][%[[ROW]],
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @producer(%dy: memref<64x128xf32> {odt.role = "user_input"},
                    %gamma: memref<128xf32> {odt.role = "parameter"},
                    %sum: memref<64xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %scaled = memref.alloc() : memref<64x128xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %d = memref.load %dy[%i, %j] : memref<64x128xf32>
    %g = memref.load %gamma[%j] : memref<128xf32>
    %p = arith.mulf %d, %g : f32
    memref.store %p, %scaled[%i, %j] : memref<64x128xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %scaled[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// Pairs that stay two kernels: a consumer that reads another row's
// statistic (the row reversed), one whose rows are not the row kernel's,
// one with more columns than the row kernel's loops (the thread's work per
// row would grow past double), and one that writes through a view of a
// buffer the row kernel reads directly.
// CHECK-LABEL: func.func @another_rows_statistic
// CHECK-COUNT-2: scf.parallel
// CHECK-LABEL: func.func @other_rows
// CHECK-COUNT-2: scf.parallel
// CHECK-LABEL: func.func @too_many_columns
// CHECK-COUNT-2: scf.parallel
// CHECK-LABEL: func.func @through_a_view
// CHECK-COUNT-2: scf.parallel
func.func @another_rows_statistic(%x: memref<64x128xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %r = arith.subi %c63, %i : index
    %s = memref.load %sum[%r] : memref<64xf32>
    memref.store %s, %x[%i, %j] : memref<64x128xf32>
    scf.reduce
  }
  return
}

func.func @other_rows(%x: memref<64x128xf32> {odt.role = "user_input"},
                      %z: memref<32x128xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c128) step (%c1, %c1) {
    %s = memref.load %sum[%i] : memref<64xf32>
    memref.store %s, %z[%i, %j] : memref<32x128xf32>
    scf.reduce
  }
  return
}

func.func @too_many_columns(%x: memref<64x128xf32> {odt.role = "user_input"},
                            %y: memref<64x256xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %s = memref.load %sum[%i] : memref<64xf32>
    memref.store %s, %y[%i, %j] : memref<64x256xf32>
    scf.reduce
  }
  return
}

func.func @through_a_view(%x: memref<64x128xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  %flat = memref.collapse_shape %x [[0, 1]] : memref<64x128xf32> into memref<8192xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %s = memref.load %sum[%i] : memref<64xf32>
    memref.store %s, %flat[%j] : memref<8192xf32>
    scf.reduce
  }
  return
}
