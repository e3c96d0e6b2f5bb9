// RUN: odt-opt %s --pass-pipeline='builtin.module(func.func(odt-vectorize-contractions{vector-width=8 rows=6}))' | FileCheck %s

// A config in the input is obeyed, the distribution and the kernels'
// inner blocking included: here dot products over columns in groups of 3
// (the selection's 8) and parallel chunks of one 16-column tile (its 2).
// contraction-kernels-agree.test checks the forced kernels' numbers.

// CHECK-LABEL: func.func @dots_in_threes
// CHECK:         %[[TILE:.*]] = arith.constant 16 : index
// CHECK:         arith.ceildivui %{{.*}}, %[[TILE]] : index
// CHECK:         scf.forall
// CHECK:           %[[GROUP:.*]] = arith.constant 3 : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[GROUP]]
// CHECK:             vector.fma
// CHECK:             vector.reduction <add>
func.func @dots_in_threes(%a: tensor<2x64xf32>, %b: tensor<32x64xf32>, %c: tensor<2x32xf32>) -> tensor<2x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x64xf32>, tensor<32x64xf32>) outs(%c : tensor<2x32xf32>)
      attrs = {odt.contraction = {blocking = {dot_group = 3 : i64}, depth = 256 : i64, distribution = {chunk_tiles = 1 : i64}, kernels = [{kernel = "dots"}], tile = array<i64: 6, 16>}} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x32xf32>
  return %r : tensor<2x32xf32>
}
