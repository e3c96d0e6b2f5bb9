// RUN: odt-opt %s --odt-gpu-distribute-parallel-loops=block-size=128 | FileCheck %s
// RUN: odt-opt %s --odt-gpu-distribute-parallel-loops=block-size=128 --convert-parallel-loops-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: not odt-opt %s --odt-gpu-distribute-parallel-loops=block-size=2048 2>&1 | FileCheck %s --check-prefix=SIZE

// A parallel loop over [n, 100] (n known at run time) becomes one loop over
// n * 100 elements in blocks of 128 threads: consecutive threads take
// consecutive elements of the row (the last dim is the remainder), the
// last block's threads past the end do nothing, and the grid is
// ceil(n * 100 / 128) blocks.
// CHECK-LABEL: func.func @add
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[C100:c100[_0-9]*]] : index
// CHECK:         scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[TOTAL]]) step (%[[STEP:.*]]) {
// CHECK:           scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[STEP]])
// CHECK:             %[[AT:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[TOTAL]] : index
// CHECK:             scf.if
// CHECK:               %[[COL:.*]] = arith.remsi %[[AT]], %[[C100]] : index
// CHECK:               %[[ROW:.*]] = arith.divsi %[[AT]], %[[C100]] : index
// CHECK:               memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// LAUNCH-LABEL: func.func @add
// LAUNCH:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads
// SIZE: odt-gpu-distribute-parallel-loops: block-size must be 1 to 1024
func.func @add(%a: memref<?x100xf32>, %b: memref<?x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %n = memref.dim %a, %c0 : memref<?x100xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c100) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x100xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i, %j] : memref<?x100xf32>
  }
  return
}

// A parallel loop nested in the outer one, inside a sequential loop (as
// linalg's loops give for an op whose reduction sits between parallel
// dims), becomes scf.for loops in each thread: convert-parallel-loops-to-gpu
// cannot map a parallel loop under a sequential one and would leave the
// whole nest on the host.
// CHECK-LABEL: func.func @nested
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             scf.if
// CHECK:               scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-NEXT:            scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-NOT:             scf.parallel
// CHECK:         return
// LAUNCH-LABEL: func.func @nested
// LAUNCH:         gpu.launch
// LAUNCH-NOT:     scf.parallel
// LAUNCH:         return
func.func @nested(%a: memref<?x8x16xf32>, %b: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %a, %c0 : memref<?x8x16xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %a[%i, %k, %j] : memref<?x8x16xf32>
        %y = memref.load %b[%i, %j] : memref<?x16xf32>
        %z = arith.addf %x, %y : f32
        memref.store %z, %b[%i, %j] : memref<?x16xf32>
      }
    }
  }
  return
}
