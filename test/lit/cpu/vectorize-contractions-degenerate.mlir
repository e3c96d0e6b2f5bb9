// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-vectorize-contractions{vector-width=16 rows=8 depth=256}),canonicalize)' | FileCheck %s

// Products with no rows or columns (Einsum "i,i->" and "bi,bi->b", a
// MatMul of a vector by a vector) are not matrix products: the pass leaves
// them to the generic lowering instead of reading result 0 of an empty
// indexing map (it crashed on ONNX's test_einsum_inner_prod).
#v = affine_map<(k) -> (k)>
#s = affine_map<(k) -> ()>

// CHECK-LABEL: func.func @inner_product
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
func.func @inner_product(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %p = linalg.generic {indexing_maps = [#v, #v, #s], iterator_types = ["reduction"]}
      ins(%x, %y : tensor<5xf32>, tensor<5xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %p : tensor<f32>
}

// -----

#bk = affine_map<(b, k) -> (b, k)>
#b = affine_map<(b, k) -> (b)>

// CHECK-LABEL: func.func @batched_inner_products
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
func.func @batched_inner_products(%x: tensor<3x5xf32>, %y: tensor<3x5xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<3xf32>) -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#bk, #bk, #b], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<3x5xf32>, tensor<3x5xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  return %p : tensor<3xf32>
}
