// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-parallelize-elementwise{min-elements=4096 chunk-elements=1024}))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#v = affine_map<(d0) -> (d0)>

// An optimizer's updates: two weights large enough to split (64 rows of 512
// in chunks of 2 rows: 32 iterations; 16 rows: 8 iterations) and a bias
// too small to split between them. None touches another's buffers, so they
// run as one parallel loop of 32 + 1 + 8 iterations: iteration i runs the
// first weight's chunk i, the bias (i = 32), or the second weight's chunk
// i - 33.
// CHECK-LABEL: func.func @optimizer
// CHECK-SAME:    (%[[W1:.*]]: memref<64x512xf32>, %[[M1:.*]]: memref<64x512xf32>, %[[B:.*]]: memref<512xf32>, %[[MB:.*]]: memref<512xf32>, %[[W2:.*]]: memref<16x512xf32>, %[[M2:.*]]: memref<16x512xf32>)
// CHECK:         %[[E1:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         %[[E2:.*]] = arith.addi %[[E1]], %[[ONE:.*]] : index
// CHECK:         %[[E3:.*]] = arith.addi %[[E2]], %{{.*}} : index
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[E3]]) step (%[[ONE]]) {
// CHECK:           %[[IN1:.*]] = arith.cmpi ult, %[[I]], %[[E1]]
// CHECK:           scf.if %[[IN1]] {
// CHECK:             memref.subview %[[W1]]
// CHECK:             linalg.generic
// CHECK:           } else {
// CHECK:             %[[IN2:.*]] = arith.cmpi ult, %[[I]], %[[E2]]
// CHECK:             scf.if %[[IN2]] {
// CHECK:               linalg.generic {{.*}} outs(%[[B]], %[[MB]] :
// CHECK:             } else {
// CHECK:               %[[J:.*]] = arith.subi %[[I]], %[[E2]]
// CHECK:               arith.muli %[[J]]
// CHECK:               memref.subview %[[W2]]
// CHECK:               linalg.generic
// CHECK:           scf.reduce
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     linalg.generic
func.func @optimizer(%w1: memref<64x512xf32>, %m1: memref<64x512xf32>,
                     %b: memref<512xf32>, %mb: memref<512xf32>,
                     %w2: memref<16x512xf32>, %m2: memref<16x512xf32>) {
  %lr = arith.constant 0.01 : f32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w1 : memref<64x512xf32>) outs(%w1, %m1 : memref<64x512xf32>, memref<64x512xf32>) {
  ^bb0(%w: f32, %wo: f32, %mo: f32):
    %m = arith.mulf %w, %lr : f32
    %n = arith.subf %w, %m : f32
    linalg.yield %n, %m : f32, f32
  }
  linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%b : memref<512xf32>) outs(%b, %mb : memref<512xf32>, memref<512xf32>) {
  ^bb0(%w: f32, %wo: f32, %mo: f32):
    %m = arith.mulf %w, %lr : f32
    %n = arith.subf %w, %m : f32
    linalg.yield %n, %m : f32, f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w2 : memref<16x512xf32>) outs(%w2, %m2 : memref<16x512xf32>, memref<16x512xf32>) {
  ^bb0(%w: f32, %wo: f32, %mo: f32):
    %m = arith.mulf %w, %lr : f32
    %n = arith.subf %w, %m : f32
    linalg.yield %n, %m : f32, f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The second loop reads what the first writes (through a view of it), the
// third writes what the second reads (the same buffer, not the view): each
// stays its own loop. A copy between two independent loops also ends a
// run.
// CHECK-LABEL: func.func @dependent
// CHECK-COUNT-4: scf.parallel
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     scf.if
func.func @dependent(%x: memref<64x512xf32>, %y: memref<64x512xf32>,
                     %z: memref<64x512xf32>, %u: memref<64x512xf32>,
                     %flag: memref<1xi1>, %flag2: memref<1xi1>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  %view = memref.subview %y[0, 0] [64, 512] [1, 1] : memref<64x512xf32> to memref<64x512xf32, strided<[512, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<64x512xf32, strided<[512, 1]>>) outs(%z : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  memref.copy %flag, %flag2 : memref<1xi1> to memref<1xi1>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#v = affine_map<(d0) -> (d0)>

// Small ops alone, together below min-elements (2 x 512): left serial.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     scf.parallel
// CHECK-COUNT-2: linalg.generic
func.func @small(%a: memref<512xf32>, %b: memref<512xf32>) {
  linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%a : memref<512xf32>) {
  ^bb0(%o: f32):
    %s = arith.addf %o, %o : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%b : memref<512xf32>) {
  ^bb0(%o: f32):
    %s = arith.addf %o, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The first loop's body reads %table itself (a gather: memref.load, not an
// operand of the op), and the second writes %table: they stay apart.
// CHECK-LABEL: func.func @gather_then_write
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT:     scf.if
func.func @gather_then_write(%x: memref<64x512xf32>, %y: memref<64x512xf32>,
                             %table: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t = memref.load %table[%i, %j] : memref<64x512xf32>
    %s = arith.addf %a, %t : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%table : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two views of one arena in different ops may be the same memory (a buffer
// whose life ended and a later one at its offset): the second loop writes
// %later, which may be where the first reads %earlier, so they stay apart.
// CHECK-LABEL: func.func @arena_views
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT:     scf.if
func.func @arena_views(%arena: memref<131072xi8>, %x: memref<64x512xf32>, %y: memref<64x512xf32>) {
  %c0 = arith.constant 0 : index
  %earlier = memref.view %arena[%c0][] : memref<131072xi8> to memref<64x512xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%earlier : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  %later = memref.view %arena[%c0][] : memref<131072xi8> to memref<64x512xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%later : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}
