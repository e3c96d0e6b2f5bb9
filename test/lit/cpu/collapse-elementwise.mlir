// RUN: odt-opt %s --split-input-file --odt-collapse-elementwise | FileCheck %s

// A weight's update in place over all of it: its 4 dims become one loop
// over a collapsed view of each buffer, the weight read and written
// through one view.
// CHECK-LABEL: func.func @update
// CHECK-SAME:    (%[[W:.*]]: memref<16x3x3x3xf32>, %[[G:.*]]: memref<16x3x3x3xf32>
// CHECK-DAG:     %[[WV:.*]] = memref.collapse_shape %[[W]] {{\[\[}}0, 1, 2, 3]] : memref<16x3x3x3xf32> into memref<432xf32>
// CHECK-DAG:     %[[GV:.*]] = memref.collapse_shape %[[G]] {{\[\[}}0, 1, 2, 3]] : memref<16x3x3x3xf32> into memref<432xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[WV]], %[[GV]] : memref<432xf32>, memref<432xf32>) outs(%[[WV]] : memref<432xf32>)
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @update(%w: memref<16x3x3x3xf32>, %g: memref<16x3x3x3xf32>, %lr: f32) {
  linalg.generic {indexing_maps = [#id4, #id4, #id4],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %g : memref<16x3x3x3xf32>, memref<16x3x3x3xf32>)
      outs(%w : memref<16x3x3x3xf32>) {
  ^bb0(%x: f32, %d: f32, %out: f32):
    %step = arith.mulf %d, %lr : f32
    %y = arith.subf %x, %step : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A per-channel scale of NCHW images (the batch dynamic): H and W become
// one loop; the channel loop stays, since the scale has it alone, and so
// does the batch, which the scale lacks while the images have it next to
// the channel.
// CHECK-LABEL: func.func @per_channel
// CHECK:         memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<?x8x4x4xf32> into memref<?x8x16xf32>
// CHECK:         memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<?x8x4x4xf32> into memref<?x8x16xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @per_channel(%x: memref<?x8x4x4xf32>, %scale: memref<8xf32>, %y: memref<?x8x4x4xf32>) {
  linalg.generic {indexing_maps = [#nchw, #channel, #nchw],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %scale : memref<?x8x4x4xf32>, memref<8xf32>)
      outs(%y : memref<?x8x4x4xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// What stays: a strided view's rows (not contiguous), a transpose (the
// dims out of order in one map), a body that uses loop positions, and an
// op right after a fill of its output.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     memref.collapse_shape
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     memref.collapse_shape
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#t2 = affine_map<(d0, d1) -> (d1, d0)>
func.func @kept(%padded: memref<6x6xf32>, %a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  %interior = memref.subview %padded[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%interior : memref<4x4xf32, strided<[6, 1], offset: 7>>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    %r = arith.addf %x, %f : f32
    linalg.yield %r : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%b : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.addf %x, %out : f32
    linalg.yield %r : f32
  }
  return
}
