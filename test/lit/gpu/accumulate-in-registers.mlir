// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-accumulate-in-registers,canonicalize))' | FileCheck %s

// A product (C = A B, k reducing, the parallel dims first): each output
// element is loaded once, carried through the k loop in a register and
// stored once; the terms are added in the same order as the load/store
// lowering's.
// CHECK-LABEL: func.func @product
// CHECK-SAME:    %[[A:.*]]: memref<?x784xf32>, %[[B:.*]]: memref<512x784xf32>
// CHECK:         %[[C:.*]] = memref.alloc
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT:      %[[INIT:.*]] = memref.load %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT:      %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[A]][%[[I]], %[[K]]]
// CHECK-NEXT:        %[[Y:.*]] = memref.load %[[B]][%[[J]], %[[K]]]
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[P]]
// CHECK-NEXT:        scf.yield %[[S]]
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT:      scf.reduce
// CHECK-NOT:     linalg.generic
func.func @product(%a: memref<?x784xf32>, %b: memref<512x784xf32>) -> memref<?x512xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x784xf32>
  %c = memref.alloc(%n) : memref<?x512xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x784xf32>, memref<512x784xf32>)
      outs(%c : memref<?x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %c : memref<?x512xf32>
}

// -----

// Two reduction dims (a filter gradient summing over the batch and the
// rows) nest their loops, the sum carried through both; linalg.index of a
// reduction dim is that loop's variable.
// CHECK-LABEL: func.func @two_reductions
// CHECK:         scf.parallel (%[[C:.*]]) =
// CHECK-NEXT:      %[[INIT:.*]] = memref.load
// CHECK-NEXT:      %[[OUTER:.*]] = scf.for %[[N:.*]] = {{.*}} iter_args(%[[A0:.*]] = %[[INIT]])
// CHECK-NEXT:        %[[INNER:.*]] = scf.for %[[R:.*]] = {{.*}} iter_args(%[[A1:.*]] = %[[A0]])
// CHECK-NEXT:          memref.load %{{.*}}[%[[N]], %[[R]], %[[C]]]
// CHECK-NEXT:          arith.index_cast %[[R]]
// CHECK:               scf.yield
// CHECK:             scf.yield %[[INNER]]
// CHECK:           memref.store %[[OUTER]]
func.func @two_reductions(%x: memref<8x4x16xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, n, r) -> (n, r, c)>,
                                   affine_map<(c, n, r) -> (c)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<8x4x16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = linalg.index 2 : index
    %ri = arith.index_cast %r : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %w = arith.mulf %v, %rf : f32
    %s = arith.addf %acc, %w : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left to convert-linalg-to-parallel-loops: an output that may be one of
// the inputs (views of one buffer), a full reduction (no parallel dim, or
// one of size 1: odt-gpu-device-scalar-work's one-thread kernel), and a
// reduction before a parallel dim (odt-gpu-parallel-dims-outermost's to
// reorder first).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     scf.for
func.func @left_alone(%buffer: memref<2x64xf32>, %x: memref<64xf32>,
                      %total: memref<f32>, %m: memref<8x64xf32>,
                      %cols: memref<64xf32>) {
  %first = memref.subview %buffer[0, 0] [1, 64] [1, 1]
      : memref<2x64xf32> to memref<64xf32, strided<[1]>>
  %both = memref.subview %buffer[0, 0] [2, 64] [1, 1]
      : memref<2x64xf32> to memref<2x64xf32, strided<[64, 1]>>
  linalg.generic {indexing_maps = [affine_map<(c, r) -> (r, c)>,
                                   affine_map<(c, r) -> (c)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%both : memref<2x64xf32, strided<[64, 1]>>)
      outs(%first : memref<64xf32, strided<[1]>>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                   affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<64xf32>) outs(%total : memref<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  %one = memref.subview %cols[0] [1] [1]
      : memref<64xf32> to memref<1xf32, strided<[1]>>
  linalg.generic {indexing_maps = [affine_map<(o, i) -> (i)>,
                                   affine_map<(o, i) -> (o)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64xf32>) outs(%one : memref<1xf32, strided<[1]>>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>,
                                   affine_map<(r, c) -> (c)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%m : memref<8x64xf32>) outs(%cols : memref<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}
