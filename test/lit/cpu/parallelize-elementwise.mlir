// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-parallelize-elementwise{min-elements=4096 chunk-elements=1024 merge=false}))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// An AdamW-like update of a 784x512 weight in place: chunks of 2 rows
// (1024 elements / 512 columns), 392 of them; the broadcast row operand is
// passed whole, the others are sliced along dim 0.
// CHECK-LABEL: func.func @update
// CHECK-DAG:     %[[ROWS:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[EXTENT:.*]] = memref.dim %arg0, %c0
// CHECK:         %[[CHUNKS:.*]] = arith.ceildivui %[[EXTENT]], %[[ROWS]]
// CHECK:         scf.parallel (%[[I:.*]]) = (%c0) to (%[[CHUNKS]]) step (%c1)
// CHECK:           %[[OFFSET:.*]] = arith.muli %[[I]], %[[ROWS]]
// CHECK:           %[[LEFT:.*]] = arith.subi %[[EXTENT]], %[[OFFSET]]
// CHECK:           %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[ROWS]]
// CHECK:           %[[W:.*]] = memref.subview %arg0[%[[OFFSET]], 0] [%[[SIZE]], 512] [1, 1]
// CHECK:           %[[G:.*]] = memref.subview %arg1[%[[OFFSET]], 0] [%[[SIZE]], 512] [1, 1]
// CHECK:           linalg.generic {{.*}} ins(%[[W]], %[[G]], %arg2 : {{.*}}) outs(%[[W]] :
// CHECK-NOT:     linalg.generic
func.func @update(%w: memref<784x512xf32>, %g: memref<784x512xf32>,
                  %b: memref<512xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #row, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %b : memref<784x512xf32>, memref<784x512xf32>, memref<512xf32>)
      outs(%w : memref<784x512xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %0 = arith.mulf %y, %z : f32
    %1 = arith.subf %x, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The outermost dim is 1, so the split is along the next one; a dim only
// known at run time counts as 1 toward the size, its extent is read from
// the operand.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[EXTENT:.*]] = memref.dim %arg0, %c1
// CHECK:         scf.parallel
// CHECK:           memref.subview %arg0[0, %{{.*}}, 0] [1, %{{.*}}, 4096] [1, 1, 1]
// CHECK:           memref.subview %arg1[0, %{{.*}}, 0] [1, %{{.*}}, 4096] [1, 1, 1]
func.func @dynamic(%x: memref<1x?x4096xf32>, %y: memref<1x?x4096xf32>) {
  %c1 = arith.constant 1 : index
  linalg.generic {indexing_maps = [#id3, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x?x4096xf32>) outs(%y : memref<1x?x4096xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Reductions split along a parallel dim their output spans: row sums by
// rows, column sums (reduction outermost) by columns; each chunk reduces
// whole rows or columns.
// CHECK-LABEL: func.func @reductions
// CHECK:         scf.parallel
// CHECK:           %[[ROWS:.*]] = memref.subview %arg0[%{{.*}}, 0] [%{{.*}}, 512] [1, 1]
// CHECK:           %[[SUMS:.*]] = memref.subview %arg1[%{{.*}}] [%{{.*}}] [1]
// CHECK:           linalg.generic {{.*}} ins(%[[ROWS]] : {{.*}}) outs(%[[SUMS]] :
// CHECK:         scf.parallel
// CHECK:           %[[COLS:.*]] = memref.subview %arg0[0, %{{.*}}] [64, %{{.*}}] [1, 1]
// CHECK:           %[[CSUMS:.*]] = memref.subview %arg2[%{{.*}}] [%{{.*}}] [1]
// CHECK:           linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%[[COLS]] : {{.*}}) outs(%[[CSUMS]] :
func.func @reductions(%big: memref<64x512xf32>, %sum: memref<64xf32>,
                      %colsum: memref<512xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%big : memref<64x512xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%big : memref<64x512xf32>) outs(%colsum : memref<512xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#first = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>

// Left alone: too small; a full reduction that is not a sum (no parallel
// dim the output spans, and not a sum: @sum_in_chunks below). The last
// one's output does not span
// d0 (every d0 writes the same row), so chunks of d0 would race: it is
// split along d1 instead.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     scf.parallel
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         scf.parallel
func.func @untouched(%small: memref<4x512xf32>, %big: memref<64x512xf32>,
                     %total: memref<f32>, %row: memref<512xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%small : memref<4x512xf32>) outs(%small : memref<4x512xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%big : memref<64x512xf32>) outs(%total : memref<f32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.maximumf %a, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #first], iterator_types = ["parallel", "parallel"]}
      ins(%big : memref<64x512xf32>) outs(%row : memref<512xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Named ops too: a strided copy (every other column block of a wider
// buffer) split by rows like a generic.
// CHECK-LABEL: func.func @strided_copy
// CHECK:         scf.parallel
// CHECK:           %[[FROM:.*]] = memref.subview %arg0[%{{.*}}, 0] [%{{.*}}, 512] [1, 1]
// CHECK:           %[[TO:.*]] = memref.subview %arg1[%{{.*}}, 0] [%{{.*}}, 512] [1, 1]
// CHECK:           linalg.copy ins(%[[FROM]] : {{.*}}) outs(%[[TO]] :
func.func @strided_copy(%from: memref<128x512xf32, strided<[1024, 1]>>,
                        %to: memref<128x512xf32>) {
  linalg.copy ins(%from : memref<128x512xf32, strided<[1024, 1]>>)
              outs(%to : memref<128x512xf32>)
  return
}

// -----

// A body reading its position along the split dim (an argmax's index) sees
// it shifted by the chunk's offset; positions along other dims unchanged.
// CHECK-LABEL: func.func @positions
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK:           %[[OFFSET:.*]] = arith.muli %[[I]], %{{.*}}
// CHECK:           linalg.generic
// CHECK:             %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT:        %[[SHIFTED:.*]] = arith.addi %[[ROW]], %[[OFFSET]] : index
// CHECK-NEXT:        %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT:        arith.addi %[[SHIFTED]], %[[COL]] : index
func.func @positions(%big: memref<64x512xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%big : memref<64x512xindex>) {
  ^bb0(%out: index):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    linalg.yield %s : index
  }
  return
}

// -----

// One buffer read through two maps (straight and transposed) gets a view
// per operand, each sliced at that operand's position of the split dim.
// CHECK-LABEL: func.func @two_maps
// CHECK:         scf.parallel
// CHECK-DAG:       %[[ROWS:.*]] = memref.subview %arg0[%[[OFF:.*]], 0] [%[[N:.*]], 512] [1, 1]
// CHECK-DAG:       %[[HEAD:.*]] = memref.subview %arg0[0, %[[OFF]]] [512, %[[N]]] [1, 1]
// CHECK:           linalg.generic {{.*}} ins(%[[ROWS]], %[[HEAD]] : {{.*}}) outs(%{{.*}} :
// A buffer written while it is read transposed is left alone: one chunk
// would read rows another writes.
// CHECK-LABEL: func.func @transpose_in_place
// CHECK-NOT:     scf.parallel
func.func @two_maps(%x: memref<512x512xf32>, %y: memref<512x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : memref<512x512xf32>, memref<512x512xf32>) outs(%y : memref<512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

func.func @transpose_in_place(%x: memref<512x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<512x512xf32>) outs(%x : memref<512x512xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A body that gathers from the buffer the op writes (the row above, through
// memref.load rather than an operand): chunks would read rows another chunk
// writes, so it stays one serial op.
// CHECK-LABEL: func.func @gather_from_output
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.generic
func.func @gather_from_output(%x: memref<64x512xf32>, %y: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c0 = arith.constant 0 : index
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %above = arith.subi %i, %c1 : index
    %row = arith.maxsi %above, %c0 : index
    %t = memref.load %y[%row, %j] : memref<64x512xf32>
    %s = arith.addf %a, %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The same gather from another buffer of the arena: views the op uses
// together are disjoint (odt-plan-arena), so it is split as usual.
// CHECK-LABEL: func.func @gather_from_arena_view
// CHECK:         scf.parallel
// CHECK:           linalg.generic
func.func @gather_from_arena_view(%arena: memref<393216xi8>) {
  %c0 = arith.constant 0 : index
  %c131072 = arith.constant 131072 : index
  %c262144 = arith.constant 262144 : index
  %x = memref.view %arena[%c0][] : memref<393216xi8> to memref<64x512xf32>
  %table = memref.view %arena[%c131072][] : memref<393216xi8> to memref<64x512xf32>
  %y = memref.view %arena[%c262144][] : memref<393216xi8> to memref<64x512xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t = memref.load %table[%j, %i] : memref<64x512xf32>
    %s = arith.addf %a, %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Code outside loops includes the branches of a choice (a BatchNorm input
// gradient in both branches of its gradients' reset choice, nested one
// level deeper here): each is split. Inside a loop an op stays whole (its
// iterations would each make a parallel loop).
// CHECK-LABEL: func.func @in_branches
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:             linalg.generic {{.*}} outs(%{{.*}} : memref<?x512xf32, strided<[512, 1], offset: ?>>)
// CHECK:         } else {
// CHECK:           scf.if
// CHECK:             scf.parallel
// CHECK:               linalg.generic {{.*}} outs(%{{.*}} : memref<?x512xf32, strided<[512, 1], offset: ?>>)
// CHECK:         scf.for
// CHECK-NOT:       scf.parallel
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : memref<64x512xf32>)
func.func @in_branches(%x: memref<64x512xf32>, %y: memref<64x512xf32>,
                       %flag: i1, %other: i1) {
  scf.if %flag {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    }
  } else {
    scf.if %other {
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
      ^bb0(%a: f32, %o: f32):
        %s = arith.addf %a, %a : f32
        linalg.yield %s : f32
      }
    }
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.subf %a, %o : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

#in = affine_map<(n, c, h, kh, kw, w) -> (n, c, h + kh, w + kw)>
#filter = affine_map<(n, c, h, kh, kw, w) -> (c, kh, kw)>
#out = affine_map<(n, c, h, kh, kw, w) -> (n, c, h, w)>

// A depthwise window accumulated into a zero-filled output, the fill far
// above it (where the tensor program made it): the fill moves down past
// the ops that do not touch the output (another view of the same arena
// is another buffer) and runs in the window's chunks, on the same view.
// A fill of a buffer that an op in between reads stays where it is.
// CHECK-LABEL: func.func @fill_with_its_consumer
// CHECK:         linalg.fill ins(%{{.*}}) outs(%arg4 : memref<64xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%arg4
// CHECK:         linalg.copy
// CHECK:         scf.parallel
// CHECK:           %[[OUT:.*]] = memref.subview %view[%{{.*}}, 0, 0, 0] [%{{.*}}, 16, 8, 8]
// CHECK-NEXT:      linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] :
// CHECK-NEXT:      linalg.generic {{.*}} outs(%[[OUT]] :
// CHECK-NOT:     linalg.fill
func.func @fill_with_its_consumer(%arena: memref<?xi8>, %n: index,
                                  %x: memref<?x16x10x10xf32>,
                                  %f: memref<16x3x3xf32>,
                                  %a: memref<64xf32>, %b: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c65536 = arith.constant 65536 : index
  %out = memref.view %arena[%c0][%n] : memref<?xi8> to memref<?x16x8x8xf32>
  %other = memref.view %arena[%c65536][] : memref<?xi8> to memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<?x16x8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.copy ins(%b : memref<64xf32>) outs(%other : memref<64xf32>)
  linalg.generic {indexing_maps = [#in, #filter, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %f : memref<?x16x10x10xf32>, memref<16x3x3xf32>)
      outs(%out : memref<?x16x8x8xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A padded buffer zero-filled whole, then its interior written by an
// elementwise op (odt-pad-into-producer's form): the fill runs in the op's
// chunks, on the padded buffer's images of the chunk, so each chunk's
// border and interior are written while its rows are in cache. A subview
// that does not span the buffer's images from the first leaves the fill
// whole, before the loop, in a loop over the threads of its own.
// CHECK-LABEL: func.func @fill_around_the_output
// CHECK:         %[[PADDED:.*]] = memref.view %arg0[%{{.*}}][%arg1] : memref<?xi8> to memref<?x16x10x10xf32>
// CHECK:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1] [%arg1, 16, 8, 8]
// CHECK:         scf.parallel
// CHECK:           %[[ROWS:.*]] = memref.subview %[[INTERIOR]][%[[OFFSET:.*]], 0, 0, 0] [%[[SIZE:.*]], 16, 8, 8]
// CHECK:           %[[IMAGES:.*]] = memref.subview %[[PADDED]][%[[OFFSET]], 0, 0, 0] [%[[SIZE]], 16, 10, 10]
// CHECK-NEXT:      linalg.fill ins(%{{.*}} : f32) outs(%[[IMAGES]] :
// CHECK-NEXT:      linalg.generic {{.*}} outs(%[[ROWS]] :
// CHECK-LABEL: func.func @fill_around_part_of_the_images
// CHECK:         scf.parallel
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<?x16x10x10xf32, strided
// CHECK:         scf.parallel
// CHECK-NOT:       linalg.fill
// CHECK:           linalg.generic
func.func @fill_around_the_output(%arena: memref<?xi8>, %n: index,
                                  %x: memref<?x16x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %padded = memref.view %arena[%c0][%n] : memref<?xi8> to memref<?x16x10x10xf32>
  %interior = memref.subview %padded[0, 0, 1, 1] [%n, 16, 8, 8] [1, 1, 1, 1]
      : memref<?x16x10x10xf32> to memref<?x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%padded : memref<?x16x10x10xf32>)
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<?x16x8x8xf32>)
      outs(%interior : memref<?x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

func.func @fill_around_part_of_the_images(%arena: memref<?xi8>, %n: index,
                                          %m: index,
                                          %x: memref<?x16x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %padded = memref.view %arena[%c0][%n] : memref<?xi8> to memref<?x16x10x10xf32>
  %interior = memref.subview %padded[0, 0, 1, 1] [%m, 16, 8, 8] [1, 1, 1, 1]
      : memref<?x16x10x10xf32> to memref<?x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%padded : memref<?x16x10x10xf32>)
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<?x16x8x8xf32>)
      outs(%interior : memref<?x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id3c = affine_map<(i, h, w) -> (i, h, w)>

// The interior written through a collapse (odt-collapse-elementwise joined
// the images and channels into one dim, as it does with the padded dY of a
// convolution's input gradient): the padded buffer is collapsed the same
// way, and each chunk fills its rows of it right before writing their
// interior.
// CHECK-LABEL: func.func @fill_around_a_collapsed_output
// CHECK:         %[[PADDED:.*]] = memref.view
// CHECK:         scf.parallel
// CHECK:           %[[ROWS:.*]] = memref.collapse_shape %[[PADDED]] {{\[}}[0, 1], [2], [3]] : memref<?x16x10x10xf32> into memref<?x10x10xf32>
// CHECK:           %[[CHUNK:.*]] = memref.subview %[[ROWS]][%{{.*}}, 0, 0] [%{{.*}}, 10, 10]
// CHECK-NEXT:      linalg.fill ins(%{{.*}} : f32) outs(%[[CHUNK]] :
// CHECK-NEXT:      linalg.generic
func.func @fill_around_a_collapsed_output(%arena: memref<?xi8>, %n: index,
                                          %x: memref<?x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %padded = memref.view %arena[%c0][%n] : memref<?xi8> to memref<?x16x10x10xf32>
  %interior = memref.subview %padded[0, 0, 1, 1] [%n, 16, 8, 8] [1, 1, 1, 1]
      : memref<?x16x10x10xf32> to memref<?x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  %rows = memref.collapse_shape %interior [[0, 1], [2], [3]]
      : memref<?x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>> into memref<?x8x8xf32, strided<[100, 10, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%padded : memref<?x16x10x10xf32>)
  linalg.generic {indexing_maps = [#id3c, #id3c], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<?x8x8xf32>)
      outs(%rows : memref<?x8x8xf32, strided<[100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id4s = affine_map<(n, c, h, w) -> (n, c, h, w)>

// The op writing the interior is too small to split (2048 elements), the
// padded buffer's fill is not (4608): the fill is split on its own, as any
// fill that no op takes into its chunks.
// CHECK-LABEL: func.func @fill_around_an_op_left_whole
// CHECK:         scf.parallel
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<?x16x12x12xf32, strided
// CHECK:         }
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.generic
func.func @fill_around_an_op_left_whole(%x: memref<2x16x8x8xf32>, %padded: memref<2x16x12x12xf32>) {
  %zero = arith.constant 0.0 : f32
  %interior = memref.subview %padded[0, 0, 2, 2] [2, 16, 8, 8] [1, 1, 1, 1]
      : memref<2x16x12x12xf32> to memref<2x16x8x8xf32, strided<[2304, 144, 12, 1], offset: 26>>
  linalg.fill ins(%zero : f32) outs(%padded : memref<2x16x12x12xf32>)
  linalg.generic {indexing_maps = [#id4s, #id4s], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<2x16x8x8xf32>)
      outs(%interior : memref<2x16x8x8xf32, strided<[2304, 144, 12, 1], offset: 26>>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>

// A sum of a whole tensor into one f32 (an MSE loss): partial sums over row
// chunks of its outermost dim (1024 elements: 2 rows), each from zero, in
// parallel, then added to the output, after its own fill, in chunk order.
// CHECK-LABEL: func.func @sum_in_chunks
// CHECK-SAME:    (%[[BIG:.*]]: memref<64x512xf32>, %[[TARGET:.*]]: memref<64x512xf32>, %[[TOTAL:.*]]: memref<f32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[TOTAL]] : memref<f32>)
// CHECK:         %[[CHUNKS:.*]] = arith.ceildivui %{{.*}}, %c2
// CHECK:         %[[PARTIALS:.*]] = memref.alloca(%[[CHUNKS]]) : memref<?xf32>
// CHECK:         scf.parallel (%[[CHUNK:.*]]) = (%c0) to (%[[CHUNKS]]) step (%c1)
// CHECK:           %[[PARTIAL:.*]] = memref.subview %[[PARTIALS]][%[[CHUNK]]] [1] [1] : memref<?xf32> to memref<f32, strided<[], offset: ?>>
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%[[PARTIAL]] :
// CHECK:           %[[ROWS:.*]] = memref.subview %[[BIG]][%{{.*}}, 0] [%{{.*}}, 512] [1, 1]
// CHECK:           %[[TARGETROWS:.*]] = memref.subview %[[TARGET]][%{{.*}}, 0] [%{{.*}}, 512] [1, 1]
// CHECK:           linalg.generic {{.*}} ins(%[[ROWS]], %[[TARGETROWS]] : {{.*}}) outs(%[[PARTIAL]] : {{.*}})
// CHECK:             arith.subf
// CHECK:         } {odt.row_chunks}
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[PARTIALS]] : memref<?xf32>) outs(%[[TOTAL]] : memref<f32>)
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
func.func @sum_in_chunks(%big: memref<64x512xf32>, %target: memref<64x512xf32>, %total: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%total : memref<f32>)
  linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%big, %target : memref<64x512xf32>, memref<64x512xf32>) outs(%total : memref<f32>) {
  ^bb0(%a: f32, %t: f32, %out: f32):
    %d = arith.subf %a, %t : f32
    %s = arith.mulf %d, %d : f32
    %0 = arith.addf %out, %s : f32
    linalg.yield %0 : f32
  }
  return
}
