// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-split-shared-fills))' | FileCheck %s

// One zero fill (merged by CSE) is the init of two reductions: each gets
// its own fill of its own empty tensor, so bufferization writes both in
// place instead of copying one filled buffer for the second.
// The first in program order keeps the original fill (whatever the order
// of the fill's use list), the other gets a copy right before it.
// CHECK-LABEL: func.func @two_sums
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK:         %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F1]] : tensor<8xf32>)
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK:         %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F2]] : tensor<8xf32>)
func.func @two_sums(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x4xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<8x4xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// A fill whose users are not linalg ops writing into it stays one fill.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT:     linalg.fill
func.func @kept(%x: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %f, %f : tensor<8xf32>, tensor<8xf32>
}
