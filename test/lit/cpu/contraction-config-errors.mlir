// RUN: odt-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(odt-select-contraction-kernels{vector-width=8 rows=6}))'

// A config given in the input is checked against what the product and the
// target allow; each mistake is an error at the product.

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @direct_on_transposed_b(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: the direct kernel cannot compute this product (B is transposed)}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "direct"}], tile = array<i64: 6, 16>}} {
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
func.func @swapped_beyond_a_vector(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: the swapped kernel takes at most one vector of rows: max_rows from 1 to 8}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "swapped", max_rows = 16}, {kernel = "dots"}], tile = array<i64: 6, 16>}} {
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
func.func @last_is_conditional(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: the last of kernels applies to every product: no min_rows, max_rows or min_k}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "packed", min_rows = 8}], tile = array<i64: 6, 16>}} {
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
func.func @tile_of_another_target(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: tile must be [rows, columns] with 1 to 16 rows and 16 or 8 columns (two vectors of the target, or one)}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "packed"}], tile = array<i64: 8, 32>}} {
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
func.func @unknown_key(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: unknown key 'strategy'}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {strategy = "fast"}} {
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
func.func @kept_panels_of_an_activation(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: kept_panels needs B to be a parameter of the entry point with a static 2-D shape, kept by no other product}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kept_panels, kernels = [{kernel = "packed"}], tile = array<i64: 6, 16>}} {
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
func.func @no_rows_per_block(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: distribution.row_block must be a positive integer}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, distribution = {row_block = 0 : i64}, kernels = [{kernel = "packed"}], tile = array<i64: 6, 16>}} {
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
func.func @blocking_of_another_kind(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: blocking: unknown key 'row_block'}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {blocking = {row_block = 64 : i64}, depth = 256 : i64, kernels = [{kernel = "packed"}], tile = array<i64: 6, 16>}} {
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
func.func @swapped_in_one_vector(%a: tensor<?x64xf32>, %b: tensor<8x64xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{odt.contraction: the swapped kernel needs a tile of two vectors}}
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<8x64xf32>) outs(%c : tensor<?x8xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "swapped", max_rows = 8 : i64}, {kernel = "packed"}], tile = array<i64: 12, 8>}} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @panels_in_place_of_wide_rows(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{odt.contraction: panels_in_place needs the packed kernel alone, no kept panels, and B laid out as [..., k, n] with n static and equal to the tile's columns}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "packed"}], panels_in_place, tile = array<i64: 6, 16>}} {
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
func.func @row_panels_of_a_along_k(%a: tensor<64x64xf32>, %b: tensor<64x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{odt.contraction: row_panels_of_a needs a packed kernel and A stored with m innermost ([k, m])}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x32xf32>) outs(%c : tensor<64x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "packed"}], row_panels_of_a, tile = array<i64: 6, 16>}} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @row_panels_of_a_without_packed(%a: tensor<64x8xf32>, %b: tensor<64x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{odt.contraction: row_panels_of_a needs a packed kernel and A stored with m innermost ([k, m])}}
  %r = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x8xf32>, tensor<64x32xf32>) outs(%c : tensor<8x32xf32>)
      attrs = {odt.contraction = {depth = 256 : i64, kernels = [{kernel = "direct"}], row_panels_of_a, tile = array<i64: 6, 16>}} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
