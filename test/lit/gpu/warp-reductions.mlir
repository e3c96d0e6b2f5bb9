// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-warp-reductions))' | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-warp-reductions,odt-gpu-distribute-parallel-loops))' | FileCheck %s --check-prefix=DISTRIBUTED

// A LayerNorm's mean: each row's sum of 128 terms, read along the row. The
// loop gets a lane dim of 32, innermost; lane l sums terms l, l + 32, ...
// from zero; five xor shuffles combine the lanes; the sum's initial value
// (the output's, loaded) is added once, after; the rest of the body is as
// it was, in every lane.
// CHECK-LABEL: func.func @row_mean
// CHECK:         scf.parallel (%[[ROW:.*]], %[[LANE:.*]]) = (%c0{{.*}}, %c0{{.*}}) to (%{{.*}}, %c32{{.*}}) step
// CHECK:           %[[INIT:.*]] = memref.load %arg1[%[[ROW]]]
// CHECK:           %[[OFFSET:.*]] = arith.muli %[[LANE]], %c1
// CHECK:           %[[START:.*]] = arith.addi %c0, %[[OFFSET]]
// CHECK:           %[[STRIDE:.*]] = arith.muli %c1, %c32
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[PARTIAL:.*]] = scf.for %[[K:.*]] = %[[START]] to %c128 step %[[STRIDE]] iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK:             memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:           %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[PARTIAL]], %c16_i32, %c32_i32 : f32
// CHECK:           %[[T16:.*]] = arith.addf %[[PARTIAL]], %[[S16]]
// CHECK:           gpu.shuffle xor %[[T16]], %c8_i32
// CHECK:           gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK:           gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK:           %[[S1:.*]], %{{.*}} = gpu.shuffle xor %[[T2:.*]], %c1_i32
// CHECK:           %[[T1:.*]] = arith.addf %[[T2]], %[[S1]]
// CHECK:           %[[TOTAL:.*]] = arith.addf %[[INIT]], %[[T1]]
// CHECK:           %[[MEAN:.*]] = arith.divf %[[TOTAL]]
// CHECK:           memref.store %[[MEAN]], %arg1[%[[ROW]]]
// The lane dim is collapsed last: consecutive threads are a row's lanes.
// DISTRIBUTED-LABEL: func.func @row_mean
// DISTRIBUTED:         %[[THREADS:.*]] = arith.muli %{{.*}}, %c32
// DISTRIBUTED:         scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[THREADS]]) step (%[[BLOCKSTEP:.*]])
// DISTRIBUTED:           scf.parallel
// DISTRIBUTED:             %[[LINEAR:.*]] = arith.addi
// DISTRIBUTED:             arith.remsi %[[LINEAR]], %c32
// DISTRIBUTED:             gpu.shuffle xor
func.func @row_mean(%x: memref<?x128xf32> {odt.role = "user_output"}, %mean: memref<?xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %width = arith.constant 128.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x128xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %init = memref.load %mean[%i] : memref<?xf32>
    %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<?x128xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    %m = arith.divf %sum, %width : f32
    memref.store %m, %mean[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A softmax's maximum and sum of exponentials in one kernel: both loops are
// spread over the lanes. The maximum starts from its initial value in every
// lane (taking it again changes nothing) and is stored by every lane; the
// second loop reads it back in each lane.
// CHECK-LABEL: func.func @softmax_statistics
// CHECK:         scf.parallel (%[[ROW:.*]], %[[LANE:.*]]) = {{.*}} to (%c64, %c32{{.*}})
// CHECK:           %[[MAX:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %cst_0)
// CHECK:             arith.maximumf
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK-NOT:       arith.maximumf %cst_0
// CHECK:           memref.store %{{.*}}, %arg1[%[[ROW]]]
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK:             math.exp
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           arith.addf %cst,
// CHECK:           memref.store %{{.*}}, %arg2[%[[ROW]]]
func.func @softmax_statistics(%x: memref<64x256xf32> {odt.role = "user_output"}, %max: memref<64xf32> {odt.role = "user_output"},
                              %sum: memref<64xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %m = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %lowest) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x256xf32>
      %n = arith.maximumf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %m, %max[%i] : memref<64xf32>
    %s = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x256xf32>
      %r = memref.load %max[%i] : memref<64xf32>
      %d = arith.subf %v, %r : f32
      %e = math.exp %d : f32
      %n = arith.addf %acc, %e : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// Loops a warp does not take: a sum down a column (the loop index is not the
// innermost index; the threads' reads are coalesced already), a row too
// short (32 terms), a loop that writes, three loop-carried values, a row of
// a transposed view (its innermost dim is not contiguous), and a loop
// nested in another.
// CHECK-LABEL: func.func @not_rows
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     scf.parallel ({{.*}}, {{.*}})
// CHECK:         return
func.func @not_rows(%x: memref<128x64xf32> {odt.role = "user_output"}, %short: memref<64x32xf32> {odt.role = "user_output"},
                    %t: memref<64x128xf32, strided<[1, 64]>> {odt.role = "user_output"},
                    %out: memref<64xf32> {odt.role = "user_output"}, %copy: memref<64x128xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%k, %j] : memref<128x64xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%j] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %short[%i, %k] : memref<64x32xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %t[%i, %k] : memref<64x128xf32, strided<[1, 64]>>
      memref.store %v, %copy[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s:3 = scf.for %k = %c0 to %c128 step %c1
        iter_args(%a = %zero, %b = %zero, %c = %zero) -> (f32, f32, f32) {
      %v = memref.load %copy[%i, %k] : memref<64x128xf32>
      %na = arith.addf %a, %v : f32
      %nb = arith.maximumf %b, %v : f32
      %nc = arith.minimumf %c, %v : f32
      scf.yield %na, %nb, %nc : f32, f32, f32
    }
    %ab = arith.addf %s#0, %s#1 : f32
    %abc = arith.addf %ab, %s#2 : f32
    memref.store %abc, %out[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %t[%i, %k] : memref<64x128xf32, strided<[1, 64]>>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %h = %c0 to %c4 step %c1 iter_args(%outer = %zero) -> (f32) {
      %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %outer) -> (f32) {
        %v = memref.load %copy[%i, %k] : memref<64x128xf32>
        %n = arith.addf %acc, %v : f32
        scf.yield %n : f32
      }
      scf.yield %r : f32
    }
    memref.store %s, %out[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// A softmax as odt-gpu-fuse-row-consumers leaves it: the row's division
// is a loop over its columns in the row's kernel, in place. The warp
// spreads it too: lane l divides elements l, l + 32, ..., the ones it read
// in the two sums, after the sums' butterflies (every lane stored the
// same maximum and sum, and reads its own store back).
// CHECK-LABEL: func.func @softmax_in_one_kernel
// CHECK:         scf.parallel (%[[ROW:.*]], %[[LANE:.*]]) =
// CHECK:           scf.for {{.*}} iter_args
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           scf.for {{.*}} iter_args
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           %[[OFFSET:.*]] = arith.muli %[[LANE]], %c1
// CHECK:           %[[START:.*]] = arith.addi %c0, %[[OFFSET]]
// CHECK:           %[[STRIDE:.*]] = arith.muli %c1, %c32
// CHECK:           scf.for %[[COL:.*]] = %[[START]] to %c128 step %[[STRIDE]] {
// CHECK:             arith.divf
// CHECK:             memref.store %{{.*}}, %arg0[%[[ROW]], %[[COL]]]
func.func @softmax_in_one_kernel(%x: memref<64x128xf32> {odt.role = "user_output"}) {
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
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %x[%i, %j] : memref<64x128xf32>
      %r = memref.load %max[%i] : memref<64xf32>
      %q = memref.load %sum[%i] : memref<64xf32>
      %d = arith.subf %v, %r : f32
      %e = math.exp %d : f32
      %o = arith.divf %e, %q : f32
      memref.store %o, %x[%i, %j] : memref<64x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Kernels whose lanes would meet: the lane-uniform code reads an element a
// column loop wrote (another lane's), and a column loop reads a buffer
// before the lane-uniform code writes it (another lane may write it first).
// CHECK-LABEL: func.func @lanes_would_meet
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     scf.parallel ({{.*}}, {{.*}})
// CHECK:         return
func.func @lanes_would_meet(%x: memref<64x128xf32> {odt.role = "user_output"},
                            %y: memref<64x128xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
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
    scf.for %j = %c0 to %c128 step %c1 {
      memref.store %s, %y[%i, %j] : memref<64x128xf32>
    }
    %fifth = memref.load %y[%i, %c5] : memref<64x128xf32>
    memref.store %fifth, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<64x128xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    scf.for %j = %c0 to %c128 step %c1 {
      %old = memref.load %sum[%i] : memref<64xf32>
      memref.store %old, %y[%i, %j] : memref<64x128xf32>
    }
    memref.store %s, %sum[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
