// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-accumulate-in-registers,canonicalize,cse))' | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-accumulate-in-registers{split-long-sums=false fuse-epilogues=false},canonicalize))' | FileCheck %s --check-prefix=UNSPLIT
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-accumulate-in-registers{register-tile=1},canonicalize))' | FileCheck %s --check-prefix=UNTILED

// A product (C = A B, k reducing, the parallel dims first): each thread
// computes a 4 x 4 tile of C (rows i from A, columns j from B: the
// innermost pair of parallel dims each reused by the other's input), each
// element loaded once, carried through the k loop in a register and stored
// once. Per term it loads 4 values of A and 4 of B for 16 multiply-adds.
// The rows (a batch of unknown size) run past the end in the last tile:
// those elements are computed again at the last row and not stored. Each
// element adds its terms in the same order as the load/store lowering's.
// CHECK-LABEL: func.func @product
// CHECK-SAME:    %[[A:.*]]: memref<?x784xf32>, %[[B:.*]]: memref<512x784xf32>
// CHECK:         %[[N:.*]] = memref.dim %[[A]]
// CHECK:         %[[C:.*]] = memref.alloc
// CHECK:         %[[ROW_TILES:.*]] = arith.ceildivui %[[N]], %c4
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%[[ROW_TILES]], %c128)
// CHECK:           %[[ROW0:.*]] = arith.muli %[[I]], %c4
// CHECK:           %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK:           %[[CLAMPED0:.*]] = arith.minui %[[ROW0]], %[[LAST]]
// CHECK:           %[[INSIDE0:.*]] = arith.cmpi ult, %[[ROW0]], %[[N]]
// CHECK:           %[[COL0:.*]] = arith.muli %[[J]], %c4
// CHECK-COUNT-16:  memref.load %[[C]]
// CHECK:           %[[SUMS:.*]]:16 = scf.for %[[K:.*]] = %c0 to %c784 step %c1 iter_args(%[[ACC:[^ ]*]] = %{{.*}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NEXT:        %[[X0:.*]] = memref.load %[[A]][%[[CLAMPED0]], %[[K]]]
// CHECK-NEXT:        %[[Y0:.*]] = memref.load %[[B]][%[[COL0]], %[[K]]]
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[X0]], %[[Y0]]
// CHECK-NEXT:        arith.addf %[[ACC]], %[[P]]
// CHECK-NEXT:        %[[Y1:.*]] = memref.load %[[B]]
// CHECK-NEXT:        arith.mulf %[[X0]], %[[Y1]]
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        %[[Y2:.*]] = memref.load %[[B]]
// CHECK-NEXT:        arith.mulf %[[X0]], %[[Y2]]
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        %[[Y3:.*]] = memref.load %[[B]]
// CHECK-NEXT:        arith.mulf %[[X0]], %[[Y3]]
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        %[[X1:.*]] = memref.load %[[A]]
// CHECK-NEXT:        arith.mulf %[[X1]], %[[Y0]]
// CHECK-NOT:         memref.load %[[B]]
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.if %[[INSIDE0]] {
// CHECK-NEXT:        memref.store %[[SUMS]]#0, %[[C]][%[[CLAMPED0]], %[[COL0]]]
// CHECK-COUNT-15:  memref.store %[[SUMS]]
// CHECK:           scf.reduce
// CHECK-NOT:     linalg.generic
// With register-tile=1, a thread per element of C.
// UNTILED-LABEL: func.func @product
// UNTILED-SAME:    %[[A:.*]]: memref<?x784xf32>, %[[B:.*]]: memref<512x784xf32>
// UNTILED:         %[[C:.*]] = memref.alloc
// UNTILED:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// UNTILED-NEXT:      %[[INIT:.*]] = memref.load %[[C]][%[[I]], %[[J]]]
// UNTILED-NEXT:      %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// UNTILED-NEXT:        %[[X:.*]] = memref.load %[[A]][%[[I]], %[[K]]]
// UNTILED-NEXT:        %[[Y:.*]] = memref.load %[[B]][%[[J]], %[[K]]]
// UNTILED-NEXT:        %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
// UNTILED-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[P]]
// UNTILED-NEXT:        scf.yield %[[S]]
// UNTILED-NEXT:      }
// UNTILED-NEXT:      memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// UNTILED-NEXT:      scf.reduce
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

// -----

// A long sum over few outputs (a batch norm's per-channel sum over a batch
// of unknown size) is split: slices = min(ceil(16384 / 16 outputs), ceil(
// terms / 64), 256, units), at least 1, where the units are the (n, h)
// pairs, shared out among the slices, and w runs whole in each thread.
// The first loop, a thread per (slice, channel), sums its slice from
// zero into a scratch buffer; the second adds each channel's slices to the
// output, in slice order, in a register.
// CHECK-LABEL: func.func @channel_sums
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[N:.*]] = memref.dim %{{.*}}, %c0
// CHECK:         %[[UNITS:.*]] = arith.muli %[[N]], %c32
// CHECK:         %[[TERMS:.*]] = arith.muli %[[N]], %c1024
// CHECK:         %[[BY_TERMS:.*]] = arith.ceildivui %[[TERMS]], %c64
// CHECK:         %[[CAPPED:.*]] = arith.minui %[[BY_TERMS]], %c256
// CHECK:         %[[AT_MOST_UNITS:.*]] = arith.minui %[[CAPPED]], %[[UNITS]]
// CHECK:         %[[SLICES:.*]] = arith.maxui %[[AT_MOST_UNITS]], %c1
// CHECK:         %[[PER_SLICE:.*]] = arith.ceildivui %[[UNITS]], %[[SLICES]]
// CHECK:         %[[PARTIAL:.*]] = memref.alloc(%[[SLICES]]) : memref<?x16xf32>
// CHECK:         scf.parallel (%[[S:.*]], %[[C:.*]]) = (%c0, %c0) to (%[[SLICES]], %c16)
// CHECK:           %[[BEGIN:.*]] = arith.muli %[[S]], %[[PER_SLICE]]
// CHECK:           %[[END:.*]] = arith.minui %{{.*}}, %[[UNITS]]
// CHECK:           %[[SLICE_SUM:.*]] = scf.for %[[U:.*]] = %[[BEGIN]] to %[[END]] step %c1 iter_args(%{{.*}} = %[[ZERO]])
// CHECK-DAG:         %[[H:.*]] = arith.remui %[[U]], %c32
// CHECK-DAG:         %[[NN:.*]] = arith.divui %[[U]], %c32
// CHECK:             scf.for %[[W:.*]] = %c0 to %c32
// CHECK-NEXT:          memref.load %{{.*}}[%[[NN]], %[[C]], %[[H]], %[[W]]]
// CHECK:           memref.store %[[SLICE_SUM]], %[[PARTIAL]][%[[S]], %[[C]]]
// CHECK:         scf.parallel (%[[C2:.*]]) = (%c0) to (%c16)
// CHECK-NEXT:      %[[INIT:.*]] = memref.load %[[OUT:.*]][%[[C2]]]
// CHECK-NEXT:      %[[TOTAL:.*]] = scf.for %[[S2:.*]] = %c0 to %[[SLICES]] step %c1 iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK-NEXT:        %[[PART:.*]] = memref.load %[[PARTIAL]][%[[S2]], %[[C2]]]
// CHECK-NEXT:        arith.addf %[[ACC]], %[[PART]]
// CHECK:           memref.store %[[TOTAL]], %[[OUT]][%[[C2]]]
// CHECK-NOT:     linalg.generic
// With split-long-sums=false, a thread per channel sums all its terms.
// UNSPLIT-LABEL: func.func @channel_sums
// UNSPLIT-NOT:   memref.alloc
// UNSPLIT:       scf.parallel (%[[C:.*]]) =
// UNSPLIT-NEXT:    memref.load
// UNSPLIT-NEXT:    scf.for
// UNSPLIT-NEXT:      scf.for
// UNSPLIT-NEXT:        scf.for
// UNSPLIT-NOT:   scf.parallel
// UNSPLIT:       return
func.func @channel_sums(%x: memref<?x16x32x32xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, n, h, w) -> (n, c, h, w)>,
                                   affine_map<(c, n, h, w) -> (c)>],
                  iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : memref<?x16x32x32xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A loss summed to a scalar over a batch of unknown size of 3 x 32 x 32
// images: the first loop is a thread per slice (of the (n, c, h) rows) and the second a full reduction of
// the slices, left as a generic for odt-gpu-device-scalar-work's
// one-thread kernel. A maximum starts each slice at -inf.
// CHECK-LABEL: func.func @scalar_sum
// CHECK:         %[[PARTIAL:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         scf.parallel (%{{.*}}) =
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
// CHECK-SAME:      ins(%[[PARTIAL]] : memref<?xf32>)
// CHECK-LABEL: func.func @row_maxima
// CHECK:         %[[MINUS_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         scf.parallel
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[MINUS_INF]])
// CHECK:             arith.maximumf
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:             arith.maximumf
func.func @scalar_sum(%x: memref<?x3x32x32xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> ()>],
                  iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
      ins(%x : memref<?x3x32x32xf32>) outs(%out : memref<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @row_maxima(%x: memref<8x8192xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>,
                                   affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x8192xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %acc, %v : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Not split, each a thread per output summing all its terms: outputs of
// unknown count (rows of a batch), more than 4096 outputs, fewer than 4096
// terms known statically, fewer than 4096 with the batch counted as 32 (a
// bias gradient over the rows of a batch), and a body that is not a sum of its own
// (acc * v + v: no combiner takes a neutral start).
// CHECK-LABEL: func.func @not_split
// CHECK-NOT:     memref.alloc
// CHECK-COUNT-5: scf.parallel
// CHECK-NOT:     memref.alloc
func.func @not_split(%batch_rows: memref<?x64xf32>, %bias_grad: memref<64xf32>,
                     %rows: memref<?x8192xf32>, %row_sums: memref<?xf32>,
                     %wide: memref<8192x64xf32>, %wide_sums: memref<8192xf32>,
                     %short: memref<16x200xf32>, %short_sums: memref<16xf32>,
                     %odd: memref<16x8192xf32>, %odd_out: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, r) -> (r, c)>,
                                   affine_map<(c, r) -> (c)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%batch_rows : memref<?x64xf32>) outs(%bias_grad : memref<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>,
                                   affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%rows : memref<?x8192xf32>) outs(%row_sums : memref<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>,
                                   affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%wide : memref<8192x64xf32>) outs(%wide_sums : memref<8192xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>,
                                   affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%short : memref<16x200xf32>) outs(%short_sums : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>,
                                   affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%odd : memref<16x8192xf32>) outs(%odd_out : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %acc, %v : f32
    %s = arith.addf %p, %v : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A fill of the output just before the reduction (constants between) is
// replaced: the registers start at the fill's value, nothing loads the
// output and the fill is gone. Where something reads the filled buffer in
// between (here a copy out of it), the fill stays and the sums start from
// the loaded values.
// CHECK-LABEL: func.func @filled
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel
// CHECK-NOT:       memref.load %arg2
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]],
// CHECK-LABEL: func.func @read_between
// CHECK:         linalg.fill
// CHECK:         memref.copy
// CHECK:         scf.parallel
// CHECK:           memref.load
// CHECK:           scf.for
func.func @filled(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  %unused = arith.constant 7 : index
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf32>, memref<64x32xf32>)
      outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @read_between(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64x64xf32>,
                        %seen: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  memref.copy %c, %seen : memref<64x64xf32> to memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf32>, memref<64x32xf32>)
      outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A product's bias and ReLU (an elementwise op reading each sum where the
// product wrote it) run in the product's threads on the registers: each
// element of the 4 x 4 tile adds its bias, takes the max with 0 and is
// stored to %y; the sum's buffer is still written for whoever reads it.
// With fuse-epilogues=false the elementwise op stays a generic of its own.
// CHECK-LABEL: func.func @product_bias_relu
// CHECK:         scf.parallel
// CHECK:           %[[SUMS:.*]]:16 = scf.for
// CHECK:           memref.store %[[SUMS]]#0, %[[C:.*]][%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT:      %[[BIAS:.*]] = memref.load %{{.*}}[%[[J]]]
// CHECK-NEXT:      %[[BIASED:.*]] = arith.addf %[[SUMS]]#0, %[[BIAS]]
// CHECK-NEXT:      %[[RELU:.*]] = arith.maximumf %[[BIASED]]
// CHECK-NEXT:      memref.store %[[RELU]], %[[Y:.*]][%[[I]], %[[J]]]
// CHECK-COUNT-15:  arith.maximumf
// CHECK-NOT:     linalg.generic
// UNSPLIT-LABEL: func.func @product_bias_relu
// UNSPLIT:       scf.parallel
// UNSPLIT-NOT:     arith.maximumf
// UNSPLIT:       linalg.generic
// UNSPLIT:         arith.maximumf
func.func @product_bias_relu(%a: memref<64x32xf32> {odt.role = "user_input"},
                             %b: memref<64x32xf32> {odt.role = "parameter"},
                             %bias: memref<64xf32> {odt.role = "parameter"},
                             %y: memref<64x64xf32> {odt.role = "user_output"},
                             %c: memref<64x64xf32> {odt.role = "user_output"}) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf32>, memref<64x32xf32>)
      outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x64xf32>, memref<64xf32>)
      outs(%y : memref<64x64xf32>) {
  ^bb0(%v: f32, %bv: f32, %out: f32):
    %t = arith.addf %v, %bv : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A Gemm as odt lowers it: the bias broadcast into the output, the product
// adding into it, then a ReLU into a buffer allocated between the two. The
// broadcast is computed by each thread as its registers' start (a load of
// the bias) and goes away; the allocation moves above the product, whose
// threads then run the ReLU as an epilogue: one loop, no generic left.
// CHECK-LABEL: func.func @gemm_bias_relu
// CHECK-SAME:    %[[BIAS:[^:]*]]: memref<64xf32>
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK:         scf.parallel
// CHECK:           %[[START:.*]] = memref.load %[[BIAS]]
// CHECK:           scf.for {{.*}} iter_args(%{{[^ ]*}} = %[[START]],
// CHECK:           arith.maximumf
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @gemm_bias_relu(%a: memref<16x32xf32> {odt.role = "user_input"},
                          %w: memref<64x32xf32> {odt.role = "parameter"},
                          %bias: memref<64xf32> {odt.role = "parameter"}) -> memref<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%b: f32, %out: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<16x32xf32>, memref<64x32xf32>)
      outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %v: f32, %acc: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %y = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x64xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return %y : memref<16x64xf32>
}

// An elementwise op before the product that reads the output it writes
// (out + bias) is not an initializer: it stays, and the product loads
// each element's start.
// CHECK-LABEL: func.func @reads_its_output
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         scf.parallel
// CHECK-COUNT-16:  memref.load %[[C:arg3]]
func.func @reads_its_output(%a: memref<16x32xf32> {odt.role = "user_input"},
                            %w: memref<64x32xf32> {odt.role = "parameter"},
                            %bias: memref<64xf32> {odt.role = "parameter"},
                            %c: memref<16x64xf32> {odt.role = "user_output"}) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%b: f32, %out: f32):
    %t = arith.addf %out, %b : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<16x32xf32>, memref<64x32xf32>)
      outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %v: f32, %acc: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
