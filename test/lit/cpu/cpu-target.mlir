// RUN: odt-opt %s --odt-set-cpu-target="triple=aarch64-linux-gnu cpu=neoverse-n1 vector-width=4 rows=8" | FileCheck %s --check-prefix=SET
// RUN: odt-opt %s --pass-pipeline='builtin.module(func.func(odt-select-contraction-kernels))' | FileCheck %s
// RUN: odt-opt %s --pass-pipeline='builtin.module(func.func(odt-select-contraction-kernels{vector-width=8 rows=6}))' | FileCheck %s --check-prefix=OPTIONS

// The target is one attribute on the module: odt-set-cpu-target writes it
// (odt-compile from --target, --cpu and --target-features), and the passes
// that size kernels read it. Here a NEON target (4 lanes, 8 rows): the
// selection without options takes its tile from the module; options, when
// given, override it (lit tests of one pass).

// SET: module attributes {odt.target = {cpu = "neoverse-n1", features = "", native_bf16 = false, tile_rows = 8 : i64, triple = "aarch64-linux-gnu", vector_width = 4 : i64}}

// CHECK: kernels = [{kernel = "packed", min_rows = 32 : i64}, {kernel = "swapped", max_rows = 4 : i64, min_rows = 3 : i64}, {kernel = "dots"}], tile = array<i64: 8, 8>
// OPTIONS: kernels = [{kernel = "packed", min_rows = 24 : i64}, {kernel = "swapped", max_rows = 8 : i64, min_rows = 6 : i64}, {kernel = "dots"}], tile = array<i64: 6, 16>
module attributes {odt.target = {cpu = "neoverse-n1", features = "", native_bf16 = false, tile_rows = 8 : i64, triple = "aarch64-linux-gnu", vector_width = 4 : i64}} {
  func.func @linear(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
    %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<?x32xf32>
    return %r : tensor<?x32xf32>
  }
}
