// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-vectorize-rows))" | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-vectorize-rows{max-unrolled-taps=8}))" | FileCheck %s --check-prefix=SMALL

// A depthwise window after odt-interchange-reductions, loops
// (n, c, oh, kh, kw, ow): the output row is read once, carried through the
// window's taps and written once; the input row is a contiguous read, the
// filter tap a broadcast scalar, each tap's multiply-add one FMA. The 3x3
// window (9 taps, at most max-unrolled-taps) is unrolled, its taps in the
// loops' order.
// CHECK-LABEL: func.func @depthwise_rows
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               %[[ROW:.*]] = vector.transfer_read %arg2{{.*}} : memref<2x3x8x8xf32>, vector<8xf32>
// CHECK-NOT:           scf.for
// CHECK:               vector.transfer_read %arg0{{.*}} {in_bounds = [true]} : memref<2x3x10x10xf32>, vector<8xf32>
// CHECK:               %[[TAP:.*]] = memref.load %arg1[%{{.*}}, %c0{{.*}}, %c0{{.*}}]
// CHECK:               %[[W:.*]] = vector.broadcast %[[TAP]] : f32 to vector<8xf32>
// CHECK:               vector.fma %{{.*}}, %[[W]], %[[ROW]] : vector<8xf32>
// CHECK-COUNT-8:       memref.load %arg1
// CHECK:               %[[SUM:.*]] = vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:           scf.for
// CHECK:               vector.transfer_write %[[SUM]], %arg2{{.*}} {in_bounds = [true]} : vector<8xf32>, memref<2x3x8x8xf32>
// SMALL-LABEL: func.func @depthwise_rows
// SMALL:         scf.for {{.*}} iter_args
// SMALL:           scf.for {{.*}} iter_args
// SMALL:             memref.load %arg1
func.func @depthwise_rows(%x: memref<2x3x10x10xf32>, %w: memref<3x3x3xf32>, %y: memref<2x3x8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (c, kh, kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<2x3x10x10xf32>, memref<3x3x3xf32>) outs(%y : memref<2x3x8x8xf32>) {
  ^bb0(%in: f32, %tap: f32, %acc: f32):
    %0 = arith.mulf %in, %tap : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// linalg's depthwise order (n, oh, c, kh, kw, ow) on a target with 16-lane
// vectors: the outer loops follow the output's layout (n, c, oh), and the
// filter's 9 taps, which the row loop oh does not move, are read once per
// channel, before it (9 x 16 lanes within 12 registers' worth).
// CHECK-LABEL: func.func @depthwise_filter_hoisted
// CHECK:         scf.for %[[N:.*]] = %c0
// CHECK:           scf.for %[[C:.*]] = %c0
// CHECK-COUNT-9:     memref.load %arg1[%[[C]],
// CHECK:             scf.for %[[OH:.*]] = %c0
// CHECK-NOT:           memref.load
// CHECK:               vector.transfer_read %arg2[%[[N]], %[[C]], %[[OH]], %c0
// CHECK-NOT:           memref.load
// CHECK:               vector.transfer_write
// SMALL-LABEL: func.func @depthwise_filter_hoisted
// SMALL:         scf.for {{.*}} iter_args
module attributes {odt.target = {triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "", vector_width = 16 : i64, tile_rows = 8 : i64, native_bf16 = false}} {
func.func @depthwise_filter_hoisted(%x: memref<2x3x18x18xf32>, %w: memref<3x3x3xf32>, %y: memref<2x3x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, oh, c, kh, kw, ow) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(n, oh, c, kh, kw, ow) -> (c, kh, kw)>,
                                   affine_map<(n, oh, c, kh, kw, ow) -> (n, c, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<2x3x18x18xf32>, memref<3x3x3xf32>) outs(%y : memref<2x3x16x16xf32>) {
  ^bb0(%in: f32, %tap: f32, %acc: f32):
    %0 = arith.mulf %in, %tap : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
}

// -----

// Stride 2: the span the row covers is read at once, then every second
// element picked.
// CHECK-LABEL: func.func @strided_rows
// CHECK:         vector.transfer_read %arg0{{.*}} : memref<1x2x9x9xf32>, vector<7xf32>
// CHECK:         vector.shuffle {{.*}} [0, 2, 4, 6] : vector<7xf32>, vector<7xf32>
// CHECK:         arith.maximumf {{.*}} : vector<4xf32>
func.func @strided_rows(%x: memref<1x2x9x9xf32>, %y: memref<1x2x4x4xf32>) {
  %window = memref.alloca() : memref<3x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh * 2 + kh, ow * 2 + kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (kh, kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %window : memref<1x2x9x9xf32>, memref<3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Stride 2 where every tap's row has room for length * stride elements
// (columns kw + [0, 8) of 10, kw <= 2): each tap is read as a whole
// vector of 8, not 7 (an odd-sized read LLVM splits into scalar loads);
// the 9-column case above has no room for it.
// CHECK-LABEL: func.func @strided_rows_with_room
// CHECK:         vector.transfer_read %arg0{{.*}} : memref<1x2x10x10xf32>, vector<8xf32>
// CHECK:         vector.shuffle {{.*}} [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
// CHECK-NOT:     vector<7xf32>
func.func @strided_rows_with_room(%x: memref<1x2x10x10xf32>, %y: memref<1x2x4x4xf32>) {
  %window = memref.alloca() : memref<3x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh * 2 + kh, ow * 2 + kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (kh, kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %window : memref<1x2x10x10xf32>, memref<3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A depthwise filter gradient per image: loops (c, kh, kw, n, oh, ow), the
// sum over (oh, ow) reassociable. One vector of partial sums is carried
// through the 8 rows (unrolled: 8 taps) and reduced once per element.
// CHECK-LABEL: func.func @summed_rows
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NOT:     scf.for {{.*}} iter_args
// CHECK-COUNT-8: vector.transfer_read %arg1{{.*}} : memref<2x3x10x10xf32>, vector<8xf32>
// CHECK:         %[[SUMS:.*]] = vector.fma {{.*}} : vector<8xf32>
// CHECK-NEXT:    %[[TOTAL:.*]] = vector.reduction <add>, %[[SUMS]] fastmath<reassoc> : vector<8xf32> into f32
// CHECK:         %[[OLD:.*]] = memref.load %arg2
// CHECK:         arith.addf %[[OLD]], %[[TOTAL]] fastmath<reassoc> : f32
// CHECK:         memref.store
func.func @summed_rows(%dy: memref<2x3x8x8xf32>, %x: memref<2x3x10x10xf32>, %dw: memref<3x3x3x2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, kh, kw, n, oh, ow) -> (n, c, oh, ow)>,
                                   affine_map<(c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(c, kh, kw, n, oh, ow) -> (c, kh, kw, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%dy, %x : memref<2x3x8x8xf32>, memref<2x3x10x10xf32>) outs(%dw : memref<3x3x3x2xf32>) {
  ^bb0(%g: f32, %in: f32, %acc: f32):
    %0 = arith.mulf %g, %in : f32
    %1 = arith.addf %acc, %0 fastmath<reassoc> : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// BatchNorm's gradient: per (n, c, h), the sums of dY and of dY * x-hat
// along the row w, one reduced dim and two outputs: a vector of partial
// sums per output, each reduced once per element (LLVM kept both sums in
// memory, a load and a store per element).
// CHECK-LABEL: func.func @summed_row_two_outputs
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           scf.for
// CHECK:               %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:               %[[ZERO1:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:               %[[DY:.*]] = vector.transfer_read %arg0{{.*}} : memref<2x3x4x16xf32>, vector<16xf32>
// CHECK:               %[[X:.*]] = vector.transfer_read %arg1{{.*}} : memref<2x3x4x16xf32>, vector<16xf32>
// CHECK:               %[[MEAN:.*]] = memref.load %arg2
// CHECK:               %[[SUM_DY:.*]] = arith.addf %[[ZERO]], %[[DY]] fastmath<reassoc> : vector<16xf32>
// CHECK:               %[[SUM_DYX:.*]] = vector.fma %[[DY]], %{{.*}}, %[[ZERO1]] : vector<16xf32>
// CHECK:               %[[TOTAL_DY:.*]] = vector.reduction <add>, %[[SUM_DY]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK:               memref.store %{{.*}}, %arg3
// CHECK:               %[[TOTAL_DYX:.*]] = vector.reduction <add>, %[[SUM_DYX]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK:               memref.store %{{.*}}, %arg4
// CHECK-NOT:     linalg.generic
func.func @summed_row_two_outputs(%dy: memref<2x3x4x16xf32>, %x: memref<2x3x4x16xf32>, %mean: memref<3xf32>,
                                  %sum_dy: memref<2x3x4xf32>, %sum_dyx: memref<2x3x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h)>,
                                   affine_map<(n, c, h, w) -> (n, c, h)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%dy, %x, %mean : memref<2x3x4x16xf32>, memref<2x3x4x16xf32>, memref<3xf32>)
      outs(%sum_dy, %sum_dyx : memref<2x3x4xf32>, memref<2x3x4xf32>) {
  ^bb0(%g: f32, %in: f32, %m: f32, %acc0: f32, %acc1: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %g, %0 : f32
    %2 = arith.addf %acc0, %g fastmath<reassoc> : f32
    %3 = arith.addf %acc1, %1 fastmath<reassoc> : f32
    linalg.yield %2, %3 : f32, f32
  }
  return
}

// -----

// One output summed along its row alone (a softmax's or a norm's sum).
// CHECK-LABEL: func.func @summed_row
// CHECK:         vector.transfer_read %arg0{{.*}} : memref<4x8xf32>, vector<8xf32>
// CHECK:         vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
func.func @summed_row(%a: memref<4x8xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A sum into a scalar (a loss summed over a whole tensor, which LLVM left
// scalar with the sum stored at every element): a vector of partial sums
// carried through every loop, reduced once and added to the scalar; the
// squared difference added is one FMA.
// CHECK-LABEL: func.func @summed_into_scalar
// CHECK:         %[[SUMS:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK:           scf.for {{.*}} -> (vector<8xf32>)
// CHECK:             %[[A:.*]] = vector.transfer_read %arg0{{.*}} : memref<6x6x8xf32>, vector<8xf32>
// CHECK:             %[[B:.*]] = vector.transfer_read %arg1{{.*}} : memref<6x6x8xf32, strided<[?, ?, 1], offset: ?>>, vector<8xf32>
// CHECK:             %[[D:.*]] = arith.subf %[[A]], %[[B]] : vector<8xf32>
// CHECK:             vector.fma %[[D]], %[[D]], %{{.*}} : vector<8xf32>
// CHECK:         %[[TOTAL:.*]] = vector.reduction <add>, %[[SUMS]] fastmath<reassoc> : vector<8xf32> into f32
// CHECK:         %[[OLD:.*]] = memref.load %arg2[] : memref<f32>
// CHECK:         %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] fastmath<reassoc> : f32
// CHECK:         memref.store %[[NEW]], %arg2[] : memref<f32>
func.func @summed_into_scalar(%a: memref<6x6x8xf32>, %b: memref<6x6x8xf32, strided<[?, ?, 1], offset: ?>>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> ()>],
                  iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<6x6x8xf32>, memref<6x6x8xf32, strided<[?, ?, 1], offset: ?>>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %m = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %m fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An elementwise op with two outputs that reads its loops' positions (a max
// pool's values and flat indices, its taps unrolled): the row's position
// is a vector of its lanes, an outer loop's a broadcast of its index; the
// stride-2 taps are read as the row's span and shuffled; both outputs are
// written as rows.
// CHECK-LABEL: func.func @pool_rows
// CHECK:         scf.for %[[A:.*]] =
// CHECK:           scf.for %[[R:.*]] =
// CHECK:             %[[X0:.*]] = vector.shuffle
// CHECK:             %[[X1:.*]] = vector.shuffle
// CHECK:             %[[ROW:.*]] = vector.broadcast %[[R]] : index to vector<8xindex>
// CHECK:             %[[LANES:.*]] = vector.step : vector<8xindex>
// CHECK:             arith.index_cast %{{.*}} : vector<8xindex> to vector<8xi64>
// CHECK:             %[[TAKE:.*]] = arith.cmpf ogt, %[[X1]], %[[X0]] : vector<8xf32>
// CHECK:             %[[MAX:.*]] = arith.select %[[TAKE]], %[[X1]], %[[X0]] : vector<8xi1>, vector<8xf32>
// CHECK:             %[[AT:.*]] = arith.select %[[TAKE]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xi64>
// CHECK:             vector.transfer_write %[[MAX]], %arg1[%[[A]], %[[R]], %{{.*}}] {in_bounds = [true]} : vector<8xf32>, memref<2x4x8xf32>
// CHECK:             vector.transfer_write %[[AT]], %arg2[%[[A]], %[[R]], %{{.*}}] {in_bounds = [true]} : vector<8xi64>, memref<2x4x8xi64>
func.func @pool_rows(%x: memref<2x4x16xf32>, %y: memref<2x4x8xf32>, %i: memref<2x4x8xi64>) {
  %c16 = arith.constant 16 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : i64
  linalg.generic {indexing_maps = [affine_map<(a, r, j) -> (a, r, j * 2)>, affine_map<(a, r, j) -> (a, r, j * 2 + 1)>, affine_map<(a, r, j) -> (a, r, j)>, affine_map<(a, r, j) -> (a, r, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %x : memref<2x4x16xf32>, memref<2x4x16xf32>) outs(%y, %i : memref<2x4x8xf32>, memref<2x4x8xi64>) {
  ^bb0(%x0: f32, %x1: f32, %best: f32, %at: i64):
    %r = linalg.index 1 : index
    %j = linalg.index 2 : index
    %row = arith.muli %r, %c16 : index
    %col = arith.muli %j, %c2 : index
    %flat = arith.addi %row, %col : index
    %flat64 = arith.index_cast %flat : index to i64
    %next64 = arith.addi %flat64, %c1 : i64
    %take = arith.cmpf ogt, %x1, %x0 : f32
    %m = arith.select %take, %x1, %x0 : f32
    %k = arith.select %take, %next64, %flat64 : i64
    linalg.yield %m, %k : f32, i64
  }
  return
}

// -----

// Left to LLVM: a sum that is not marked reassociable, a row known only
// at run time, a row longer than max-length, a body that reads its
// position, and an output whose rows are not contiguous.
// CHECK-LABEL: func.func @untouched
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT:     vector.
func.func @untouched(%a: memref<4x8xf32>, %s: memref<4xf32>,
                     %d: memref<4x?xf32>, %dy: memref<3x?xf32>, %big: memref<2x128xf32>,
                     %bigy: memref<2x128xf32>, %i: memref<3x8xf32>,
                     %strided: memref<3x8xf32, strided<[16, 2]>>) {
  linalg.generic {indexing_maps = [affine_map<(r, i, j) -> (i, j)>, affine_map<(r, i, j) -> (r)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%d : memref<4x?xf32>) outs(%dy : memref<3x?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%big : memref<2x128xf32>) outs(%bigy : memref<2x128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%i : memref<3x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %j = linalg.index 2 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %0 = arith.addf %acc, %jf : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%strided : memref<3x8xf32, strided<[16, 2]>>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// An elementwise op over short rows (BatchNorm's normalization on 8-wide
// image rows, which LLVM left scalar): each row one vector op per body op,
// the same ops as the scalar loop (a multiply then an add, not an FMA);
// the output is not read (the body does not use it), and under a 16-lane
// target the per-channel inputs are read before the row loop.
// CHECK-LABEL: func.func @elementwise_rows
// CHECK:         scf.for %{{.*}} = %c0
// CHECK:           scf.for %[[C:.*]] = %c0
// CHECK:             %[[MEAN:.*]] = memref.load %arg1[%[[C]]]
// CHECK:             %[[SCALE:.*]] = memref.load %arg2[%[[C]]]
// CHECK:             scf.for
// CHECK-NOT:           memref.load
// CHECK-NOT:           vector.transfer_read %arg3
// CHECK:               %[[X:.*]] = vector.transfer_read %arg0{{.*}} : memref<2x3x4x8xf32>, vector<8xf32>
// CHECK:               %[[D:.*]] = arith.subf %[[X]], %{{.*}} : vector<8xf32>
// CHECK:               %[[P:.*]] = arith.mulf %[[D]], %{{.*}} : vector<8xf32>
// CHECK:               %[[R:.*]] = arith.addf %[[P]], %[[X]] : vector<8xf32>
// CHECK:               vector.transfer_write %[[R]], %arg3{{.*}} : vector<8xf32>, memref<2x3x4x8xf32>
module attributes {odt.target = {triple = "x86_64-unknown-linux-gnu", cpu = "x", features = "", vector_width = 16 : i64, tile_rows = 8 : i64, native_bf16 = false}} {
func.func @elementwise_rows(%x: memref<2x3x4x8xf32>, %mean: memref<3xf32>, %scale: memref<3xf32>, %y: memref<2x3x4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %scale : memref<2x3x4x8xf32>, memref<3xf32>, memref<3xf32>) outs(%y : memref<2x3x4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %k: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %0, %k : f32
    %2 = arith.addf %1, %in : f32
    linalg.yield %2 : f32
  }
  return
}
}

// -----

// In place: the input is the output, read where it is written (ReLU6 on
// its own buffer); an input read elsewhere in the output is refused.
// CHECK-LABEL: func.func @in_place
// CHECK:         %[[ROW:.*]] = vector.transfer_read %arg0{{.*}} : memref<2x8xf32>, vector<8xf32>
// CHECK:         arith.maximumf %[[ROW]]
// CHECK:         vector.transfer_write {{.*}}, %arg0
// CHECK:         linalg.generic
func.func @in_place(%y: memref<2x8xf32>, %z: memref<2x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<2x8xf32>) outs(%y : memref<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (1 - i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%z : memref<2x8xf32>) outs(%z : memref<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A tiled 2x2 pooling's gradient fused with a ReLU gradient (lenet5): dY
// and the pooling's indices read through (h floordiv 2, w floordiv 2), each
// row as its 4 elements spread to 8 lanes (0, 0, 1, 1, ...), and two
// outputs of one map, the second the ReLU's input read in place.
// CHECK-LABEL: func.func @repeated_rows
// CHECK:         %[[X:.*]] = vector.transfer_read %arg0{{.*}} : memref<2x4x8xf32>, vector<8xf32>
// CHECK:         %[[DY:.*]] = vector.transfer_read %arg1{{.*}} {in_bounds = [true]} : memref<2x2x4xf32>, vector<4xf32>
// CHECK:         vector.shuffle %[[DY]], %[[DY]] [0, 0, 1, 1, 2, 2, 3, 3] : vector<4xf32>, vector<4xf32>
// CHECK:         %[[I:.*]] = vector.transfer_read %arg2{{.*}} {in_bounds = [true]} : memref<2x2x4xi64>, vector<4xi64>
// CHECK:         vector.shuffle %[[I]], %[[I]] [0, 0, 1, 1, 2, 2, 3, 3] : vector<4xi64>, vector<4xi64>
// CHECK:         vector.step : vector<8xindex>
// CHECK:         vector.transfer_write {{.*}}, %arg3
// CHECK:         vector.transfer_write {{.*}}, %arg0
// CHECK-NOT:     linalg.generic
func.func @repeated_rows(%x: memref<2x4x8xf32>, %dy: memref<2x2x4xf32>, %idx: memref<2x2x4xi64>, %sum: memref<2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>,
                                   affine_map<(c, h, w) -> (c, h floordiv 2, w floordiv 2)>,
                                   affine_map<(c, h, w) -> (c, h floordiv 2, w floordiv 2)>,
                                   affine_map<(c, h, w) -> (c, h, w)>,
                                   affine_map<(c, h, w) -> (c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %dy, %idx : memref<2x4x8xf32>, memref<2x2x4xf32>, memref<2x2x4xi64>)
      outs(%sum, %x : memref<2x4x8xf32>, memref<2x4x8xf32>) {
  ^bb0(%in: f32, %g: f32, %i: i64, %s: f32, %out: f32):
    %c = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %ch = arith.muli %c, %c4 : index
    %row = arith.addi %ch, %h : index
    %rowStart = arith.muli %row, %c8 : index
    %flat = arith.addi %rowStart, %w : index
    %chosen = arith.index_cast %i : i64 to index
    %hit = arith.cmpi eq, %chosen, %flat : index
    %grad = arith.select %hit, %g, %zero : f32
    %positive = arith.cmpf ogt, %in, %zero : f32
    %masked = arith.select %positive, %grad, %zero : f32
    linalg.yield %grad, %masked : f32, f32
  }
  return
}

// -----

// A fill as a generic (no inputs, a value from outside yielded): the row is
// that value broadcast, written without reading the output.
// CHECK-LABEL: func.func @fill_rows
// CHECK:         %[[ROW:.*]] = vector.broadcast %arg1 : f32 to vector<6xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.transfer_write %[[ROW]], %arg0
func.func @fill_rows(%y: memref<3x6xf32>, %value: f32) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<3x6xf32>) {
  ^bb0(%out: f32):
    linalg.yield %value : f32
  }
  return
}

// -----

// A copy into the interior of a padded buffer (what odt-expand-strided-copies
// makes of the padded input of a convolution): each 8-wide row is one read
// and one write; the copy no longer becomes scalar loops. A copy into
// 100-wide rows (longer than max-length) stays a generic for LLVM's loop
// vectorizer.
// CHECK-LABEL: func.func @copy_rows
// CHECK-NOT:     linalg.copy
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               %[[ROW:.*]] = vector.transfer_read %arg0{{.*}} : memref<2x3x8x8xf32>, vector<8xf32>
// CHECK:               vector.transfer_write %[[ROW]], %{{.*}} : vector<8xf32>, memref<2x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
// CHECK:         linalg.generic
// CHECK-NOT:     linalg.copy
func.func @copy_rows(%x: memref<2x3x8x8xf32>, %padded: memref<2x3x10x10xf32>,
                     %long: memref<2x100xf32>, %wide: memref<2x102xf32>) {
  %interior = memref.subview %padded[0, 0, 1, 1] [2, 3, 8, 8] [1, 1, 1, 1]
      : memref<2x3x10x10xf32> to memref<2x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  linalg.copy ins(%x : memref<2x3x8x8xf32>)
              outs(%interior : memref<2x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>)
  %slice = memref.subview %wide[0, 1] [2, 100] [1, 1]
      : memref<2x102xf32> to memref<2x100xf32, strided<[102, 1], offset: 1>>
  linalg.copy ins(%long : memref<2x100xf32>)
              outs(%slice : memref<2x100xf32, strided<[102, 1], offset: 1>>)
  return
}

// -----

// A window whose output a fill wrote just before (odt-parallelize-elementwise
// puts the fill there): the sums start from the fill's value instead of
// the row read back, and the fill goes. A summed row's fill likewise: its
// value is what the total is added to, instead of a load.
// CHECK-LABEL: func.func @filled_outputs
// CHECK-NOT:     linalg.fill
// CHECK:         %[[START:.*]] = vector.broadcast %arg3 : f32 to vector<8xf32>
// CHECK-NOT:     vector.transfer_read %arg2
// CHECK:         vector.fma {{.*}}, %[[START]] : vector<8xf32>
// CHECK:         vector.transfer_write {{.*}}, %arg2
// CHECK:         %[[TOTAL:.*]] = vector.reduction <add>
// CHECK-NOT:     memref.load %arg4
// CHECK:         arith.addf %arg3, %[[TOTAL]] fastmath<reassoc> : f32
// CHECK:         memref.store {{.*}}, %arg4
func.func @filled_outputs(%x: memref<2x3x10x10xf32>, %f: memref<3x3x3xf32>,
                          %y: memref<2x3x8x8xf32>, %zero: f32,
                          %dw: memref<3x3x3x2xf32>) {
  linalg.fill ins(%zero : f32) outs(%y : memref<2x3x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (c, kh, kw)>,
                                   affine_map<(n, c, oh, kh, kw, ow) -> (n, c, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %f : memref<2x3x10x10xf32>, memref<3x3x3xf32>) outs(%y : memref<2x3x8x8xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.fill ins(%zero : f32) outs(%dw : memref<3x3x3x2xf32>)
  linalg.generic {indexing_maps = [affine_map<(c, kh, kw, n, oh, ow) -> (n, c, oh, ow)>,
                                   affine_map<(c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(c, kh, kw, n, oh, ow) -> (c, kh, kw, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%y, %x : memref<2x3x8x8xf32>, memref<2x3x10x10xf32>) outs(%dw : memref<3x3x3x2xf32>) {
  ^bb0(%g: f32, %in: f32, %acc: f32):
    %0 = arith.mulf %g, %in : f32
    %1 = arith.addf %acc, %0 fastmath<reassoc> : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A fill that an input reads (the same buffer, through a view) stays: the
// elementwise op reads the filled values.
// CHECK-LABEL: func.func @fill_read_by_input
// CHECK:         linalg.fill
// CHECK:         vector.transfer_read %{{.*}} : memref<2x8xf32, strided<[8, 1]>>
func.func @fill_read_by_input(%y: memref<2x8xf32>, %zero: f32) {
  %view = memref.subview %y[0, 0] [2, 8] [1, 1] : memref<2x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  linalg.fill ins(%zero : f32) outs(%y : memref<2x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<2x8xf32, strided<[8, 1]>>) outs(%y : memref<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}
