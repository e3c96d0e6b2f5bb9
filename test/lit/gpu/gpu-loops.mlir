// RUN: odt-opt %s --odt-gpu-loops | FileCheck %s

// A fill and the reduction into the filled buffer (a bias gradient: the
// sum over rows of a [32, 64] gradient; a long one is split, see
// @long_bias_gradient) are one kernel: one loop over the 64 outputs spread
// over blocks and threads, each thread summing its column in order in a
// register that starts at the fill's value (odt-gpu-accumulate-in-registers
// replaces the fill). The elementwise op that reads the sum at the same
// index runs on the register as an epilogue (the entry point's arguments,
// with odt.role, never overlap), and the sum's buffer, written and never
// read, goes away. Without fusion this was three kernels, and
// without the parallel dims first, a host loop launching one kernel per
// row.
// CHECK-LABEL: func.func @bias_gradient
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel
// CHECK-NEXT:      scf.parallel
// CHECK:             scf.if
// CHECK-NEXT:          %[[TOTAL:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK-NEXT:            memref.load %{{.*}}[%{{.*}}, %[[AT:.*]]] : memref<32x64xf32>
// CHECK-NEXT:            arith.addf %[[ACC]]
// CHECK-NEXT:            scf.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[SCALED:.*]] = arith.mulf %[[TOTAL]]
// CHECK-NEXT:          memref.store %[[SCALED]], %{{.*}}[%[[AT]]]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @bias_gradient(%grad: memref<32x64xf32> {odt.role = "user_input"},
                         %scaled: memref<64xf32> {odt.role = "user_output"}) -> index {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %grad, %c0 : memref<32x64xf32>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %sum = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%grad : memref<32x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%scaled : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  }
  memref.dealloc %sum : memref<64xf32>
  return %rows : index
}

// A loop that reads another element than the one the loop before wrote
// at its index (here the mirror one, x[63 - i]) is not fused: a thread
// would read an element another thread may not have written yet.
// CHECK-LABEL: func.func @mirrored
// CHECK-COUNT-2: processor = block_x
// CHECK-NOT:     processor = block_x
// CHECK:         return
func.func @mirrored(%y: memref<64xf32> {odt.role = "user_output"}) {
  %one = arith.constant 1.0 : f32
  %x = memref.alloc() : memref<64xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (-d0 + 63)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %x : memref<64xf32>
  return
}

// The same ops in a function whose arguments are not an entry point's (no
// odt.role): %grad and %scaled may be the same memory, so the elementwise
// loop, which writes %scaled, stays apart from the reduction that reads
// %grad. The fill still joins the reduction (%sum is an allocation).
// CHECK-LABEL: func.func @arguments_may_overlap
// CHECK-COUNT-2: processor = block_x
// CHECK-NOT:     processor = block_x
// CHECK:         return
func.func @arguments_may_overlap(%grad: memref<32x64xf32>, %scaled: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %sum = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%grad : memref<32x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%scaled : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  }
  memref.dealloc %sum : memref<64xf32>
  return
}

// -----

// A bias gradient over a batch of unknown size of 256-token sequences: 64
// outputs, each summing one term per token (at least 4096 terms, counting
// the batch as 32). Its sum is split (odt-gpu-accumulate-in-registers): a
// kernel whose threads each sum a slice of the rows for one output into a
// scratch buffer [slices, 64], the number of slices computed on the host
// from the rows, then a kernel adding each output's slices to its fill
// value and the elementwise op that reads the sum at its own index fused
// into it.
// CHECK-LABEL: func.func @long_bias_gradient
// CHECK:         %[[SLICES:.*]] = arith.maxui
// CHECK:         %[[PARTIAL:.*]] = memref.alloc(%[[SLICES]]) : memref<?x64xf32>
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK:               memref.load %{{.*}} : memref<?x256x64xf32>
// CHECK:             memref.store %{{.*}}, %[[PARTIAL]]
// CHECK:         processor = block_x
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[SLICES]]
// CHECK-NEXT:          memref.load %[[PARTIAL]]
// CHECK-NEXT:          arith.addf
// CHECK:             arith.mulf
// CHECK:         processor = block_x
// CHECK-NOT:     processor = block_x
// CHECK:         return
func.func @long_bias_gradient(%grad: memref<?x256x64xf32> {odt.role = "user_input"},
                              %scaled: memref<64xf32> {odt.role = "user_output"}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %sum = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2)>],
                  iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%grad : memref<?x256x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%scaled : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  }
  memref.dealloc %sum : memref<64xf32>
  return
}
