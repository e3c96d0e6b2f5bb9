// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-select-contraction-kernels{vector-width=8 rows=6}))' | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-select-contraction-kernels{vector-width=8 rows=6 force-kernel=dots}))' | FileCheck %s --check-prefix=DOTS
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-select-contraction-kernels{vector-width=8 rows=6 force-kernel=dots remarks}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// The selection's decisions, as attributes only (an AVX2 tile: 8 lanes,
// 6 rows, so 16 columns; the parallel distribution and the kernels' inner
// blocking ride along). What the kernels emit is tested in
// vectorize-contractions*.mlir; that every kernel gives the same numbers,
// in contraction-kernels-agree.test.

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// B transposed, k innermost in A, rows known at run time: packed from 4
// row tiles, swapped from 3/4 of a vector to one, dot products below.
// CHECK-LABEL: func.func @transposed_dynamic_rows
// CHECK: odt.contraction = {blocking = {direct_depth = 32 : i64, dot_group = 8 : i64}, depth = 256 : i64, distribution = {chunk_tiles = 2 : i64, row_block = 256 : i64}, kernels = [{kernel = "packed", min_rows = 24 : i64}, {kernel = "swapped", max_rows = 8 : i64, min_rows = 6 : i64}, {kernel = "dots"}], tile = array<i64: 6, 16>}
// Forced: every row count by dot products.
// DOTS-LABEL: func.func @transposed_dynamic_rows
// DOTS: odt.contraction = {blocking = {direct_depth = 32 : i64, dot_group = 8 : i64}, depth = 256 : i64, distribution = {chunk_tiles = 2 : i64, row_block = 256 : i64}, kernels = [{kernel = "dots"}], tile = array<i64: 6, 16>}
// REMARK: select-contraction-kernels.mlir:[[@LINE+2]]:8: remark: Forced: dots.
func.func @transposed_dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// Static row counts: the one kernel for them.
// CHECK-LABEL: func.func @transposed_static_rows
// CHECK: kernels = [{kernel = "dots"}]
// CHECK: kernels = [{kernel = "swapped"}]
// CHECK: kernels = [{kernel = "packed"}]
func.func @transposed_static_rows(%a4: tensor<4x64xf32>, %a7: tensor<7x64xf32>, %a30: tensor<30x64xf32>, %b: tensor<32x64xf32>,
                                  %c4: tensor<4x32xf32>, %c7: tensor<7x32xf32>, %c30: tensor<30x32xf32>) -> (tensor<4x32xf32>, tensor<7x32xf32>, tensor<30x32xf32>) {
  %r4 = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a4, %b : tensor<4x64xf32>, tensor<32x64xf32>) outs(%c4 : tensor<4x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  %r7 = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a7, %b : tensor<7x64xf32>, tensor<32x64xf32>) outs(%c7 : tensor<7x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<7x32xf32>
  %r30 = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a30, %b : tensor<30x64xf32>, tensor<32x64xf32>) outs(%c30 : tensor<30x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<30x32xf32>
  return %r4, %r7, %r30 : tensor<4x32xf32>, tensor<7x32xf32>, tensor<30x32xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// B's rows along n: packed from 2 row tiles, B read in place below. Dot
// products cannot compute it: forcing them leaves it as selected.
// CHECK-LABEL: func.func @rows_along_n
// CHECK: kernels = [{kernel = "packed", min_rows = 12 : i64}, {kernel = "direct"}]
// REMARK: select-contraction-kernels.mlir:[[@LINE+4]]:8: remark: B's rows lie along n: packed from 12 rows (2 row tiles), B read in place below. The forced dots kernel cannot compute this product.
// DOTS-LABEL: func.func @rows_along_n
// DOTS: kernels = [{kernel = "packed", min_rows = 12 : i64}, {kernel = "direct"}]
func.func @rows_along_n(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// n fits one vector (a convolution's 4x4 positions per image, here 6 of 8
// lanes): the tile is one vector wide and twice as tall, instead of two
// vectors whose second is all padding.
// CHECK-LABEL: func.func @narrow_rows_along_n
// CHECK: kernels = [{kernel = "packed", min_rows = 12 : i64}, {kernel = "direct"}], tile = array<i64: 12, 8>}
// REMARK: select-contraction-kernels.mlir:[[@LINE+2]]:8: remark: B's rows lie along n: packed from 12 rows (2 row tiles), B read in place below. n (6) fits one vector: a tile of 12 rows x 8 lanes. The forced dots kernel cannot compute this product.
func.func @narrow_rows_along_n(%a: tensor<?x64xf32>, %b: tensor<64x6xf32>, %c: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<64x6xf32>) outs(%c : tensor<?x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}

// -----

#a = affine_map<(t, m, n, k) -> (m, k)>
#b = affine_map<(t, m, n, k) -> (t, k, n)>
#c = affine_map<(t, m, n, k) -> (m, t, n)>

// B already laid out as panels of the tile's 16 columns ([panels, k, 16]:
// a convolution's image panels): the packed kernel reads them in place,
// whatever the row count.
// CHECK-LABEL: func.func @panels_in_place
// CHECK: kernels = [{kernel = "packed"}], panels_in_place, tile = array<i64: 6, 16>}
// REMARK: select-contraction-kernels.mlir:[[@LINE+2]]:8: remark: B is laid out as panels of 16 columns: packed, its panels read where they are. The row count is static (4): packed. The forced dots kernel cannot compute this product.
func.func @panels_in_place(%a: tensor<4x27xf32>, %b: tensor<2x27x16xf32>, %c: tensor<4x2x16xf32>) -> tensor<4x2x16xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x27xf32>, tensor<2x27x16xf32>) outs(%c : tensor<4x2x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x2x16xf32>
  return %r : tensor<4x2x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A weight gradient dW = dY^T X: 512 rows, k the batch (known at run
// time): whole-row blocks of 64 when k <= 32, and then B is read in place
// (the packed kernel needs k >= 33). A is stored [k, m]: the packed kernel
// reads it from panels of its row tiles.
// CHECK-LABEL: func.func @weight_gradient
// CHECK: odt.contraction = {blocking = {direct_depth = 32 : i64, dot_group = 8 : i64}, depth = 256 : i64, distribution = {chunk_tiles = 2 : i64, row_block = 256 : i64}, kernels = [{kernel = "packed", min_k = 33 : i64, min_rows = 12 : i64}, {kernel = "direct"}], row_panels_of_a, tile = array<i64: 6, 16>, wide_rows = {max_k = 32 : i64, row_block = 64 : i64}}
func.func @weight_gradient(%dy: tensor<?x512xf32>, %x: tensor<?x784xf32>, %c: tensor<512x784xf32>) -> tensor<512x784xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : tensor<?x512xf32>, tensor<?x784xf32>) outs(%c : tensor<512x784xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x784xf32>
  return %r : tensor<512x784xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// A parameter as B keeps its panels between steps: one product per
// parameter and layout (the second product of the same weight packs its
// own).
// CHECK-LABEL: func.func @kept_panels
// CHECK: odt.contraction = {blocking = {direct_depth = 32 : i64, dot_group = 8 : i64}, depth = 256 : i64, distribution = {chunk_tiles = 2 : i64, row_block = 256 : i64}, kept_panels, kernels = [{kernel = "packed", min_rows = 24 : i64}, {kernel = "swapped", max_rows = 8 : i64, min_rows = 6 : i64}, {kernel = "dots"}]
// CHECK-NOT: kept_panels
// CHECK: return
func.func @kept_panels(%a: tensor<?x64xf32>, %w: tensor<32x64xf32> {odt.role = "parameter", odt.name = "fc.weight", odt.param = 0 : i64},
                       %c: tensor<?x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  %r2 = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %r, %r2 : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// A config in the input is kept as it is (and forcing does not touch it).
// CHECK-LABEL: func.func @given
// CHECK: odt.contraction = {depth = 64 : i64, kernels = [{kernel = "swapped", max_rows = 8 : i64}, {kernel = "packed"}], tile = array<i64: 4, 16>}
// DOTS-LABEL: func.func @given
// DOTS: odt.contraction = {depth = 64 : i64, kernels = [{kernel = "swapped", max_rows = 8 : i64}, {kernel = "packed"}], tile = array<i64: 4, 16>}
func.func @given(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 64 : i64, kernels = [{kernel = "swapped", max_rows = 8 : i64}, {kernel = "packed"}], tile = array<i64: 4, 16>}} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
