// RUN: odt-opt %s --split-input-file --odt-gpu-loops | FileCheck %s

// Two parameters' updates (an optimizer step) touch separate buffers: one
// kernel. Its blocks cover the first loop's 300 elements rounded up to two
// blocks of 256, then the second's 100 in one block; each block runs its
// own loop's body with the block's offset in that loop, the bounds guard
// included.
// CHECK-LABEL: func.func @two_updates
// CHECK:         arith.divui
// CHECK:         %[[END0:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         arith.divui
// CHECK:         %[[END1:.*]] = arith.addi %[[END0]], %{{.*}} : index
// CHECK:         scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[END1]]) step
// CHECK:           scf.parallel
// CHECK:             arith.cmpi ult, %[[BLOCK]], %[[END0]]
// CHECK:             scf.if
// CHECK:               arith.subi %[[BLOCK]], %{{.*}}
// CHECK:               memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<300xf32>
// CHECK:             arith.cmpi uge, %[[BLOCK]], %[[END0]]
// CHECK:             scf.if
// CHECK:               arith.subi %[[BLOCK]], %[[END0]]
// CHECK:               memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<100xf32>
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @two_updates(%w: memref<300xf32> {odt.role = "parameter"},
                       %gw: memref<300xf32> {odt.role = "gradient"},
                       %b: memref<100xf32> {odt.role = "parameter"},
                       %gb: memref<100xf32> {odt.role = "gradient"}) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%gw : memref<300xf32>) outs(%w : memref<300xf32>) {
  ^bb0(%g: f32, %p: f32):
    %n = arith.subf %p, %g : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%gb : memref<100xf32>) outs(%b : memref<100xf32>) {
  ^bb0(%g: f32, %p: f32):
    %n = arith.subf %p, %g : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// The second loop reads what the first writes, at other indices (a
// transpose): they stay two kernels, in order.
// CHECK-LABEL: func.func @dependent
// CHECK-COUNT-2: processor = block_x
// CHECK-NOT:     processor = block_x
// CHECK:         return
func.func @dependent(%x: memref<16x16xf32> {odt.role = "user_input"},
                     %y: memref<16x16xf32> {odt.role = "user_output"}) {
  %t = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %t : memref<16x16xf32>
  return
}

// -----

// Arguments that are not an entry point's (no odt.role) may be the same
// memory: not merged.
// CHECK-LABEL: func.func @unknown_arguments
// CHECK-COUNT-2: processor = block_x
// CHECK-NOT:     processor = block_x
// CHECK:         return
func.func @unknown_arguments(%a: memref<64xf32>, %b: memref<32xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%a : memref<64xf32>)
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%two : f32) outs(%b : memref<32xf32>)
  return
}
