// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-tensor-core-products{precision=tf32},canonicalize,cse))' | FileCheck %s --check-prefix=TF32
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-tensor-core-products{precision=tf32x3},canonicalize,cse))' | FileCheck %s --check-prefix=X3
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-tensor-core-products{precision=bf16},canonicalize,cse))' | FileCheck %s --check-prefix=BF16
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-tensor-core-products{precision=tf32 emulate=true},canonicalize,cse))' | FileCheck %s --check-prefix=EMULATE
// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-tensor-core-products))' | FileCheck %s --check-prefix=FP32
// RUN: not odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-tensor-core-products{precision=fp16}))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: odt-gpu-tensor-core-products: unknown precision 'fp16' (fp32, tf32, tf32x3 or bf16)

// A product [rows, 64] x [64, 40] after its zero fill: warp tiles of 2 x 4
// mma tiles (32 x 32 outputs), 32 lanes innermost; the sums start from
// the fill's zero (the fill goes), run k in steps of 8 (tf32) or 16 (bf16)
// with one mma.sync per tile per step (three for tf32x3), each input
// rounded (tf32: + 0x1000, then the low 13 bits cleared), and each of the
// lane's 32 outputs is stored once, inside the bounds.
// TF32-LABEL: func.func @product
// TF32-NOT: linalg.fill
// TF32: %[[ROWS:.*]] = arith.ceildivui %{{.*}}, %c32
// TF32: scf.parallel (%{{.*}}, %{{.*}}, %[[LANE:.*]]) = (%c0, %c0, %c0) to (%[[ROWS]], %c2, %c32)
// TF32: arith.divui %[[LANE]], %c4
// TF32: arith.remui %[[LANE]], %c4
// TF32: scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// TF32: arith.addi %{{.*}}, %c4096_i32
// TF32: arith.andi %{{.*}}, %c-8192_i32
// TF32-COUNT-8: llvm.inline_asm "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"
// TF32-NOT: llvm.inline_asm
// TF32: scf.yield
// TF32-COUNT-32: memref.store
// TF32-NOT: memref.store
// TF32-NOT: linalg.generic

// X3-LABEL: func.func @product
// X3: scf.for %{{.*}} = %c0 to %c64 step %c8
// X3-COUNT-24: llvm.inline_asm "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// X3-NOT: llvm.inline_asm
// X3: scf.yield

// BF16-LABEL: func.func @product
// BF16: scf.for %{{.*}} = %c0 to %c64 step %c16
// BF16-COUNT-8: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: llvm.inline_asm
// BF16: scf.yield

// EMULATE-LABEL: func.func @product
// EMULATE: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%{{.*}}, %c2, %c32)
// EMULATE: scf.for %{{.*}} = %c0 to %c64 step %c8
// EMULATE-NOT: llvm.inline_asm
// EMULATE-COUNT-256: math.fma
// EMULATE-NOT: math.fma
// EMULATE: scf.yield

// FP32-LABEL: func.func @product
// FP32: linalg.fill
// FP32: linalg.generic

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @product(%a: memref<?x64xf32> {odt.role = "user_input"}, %b: memref<64x40xf32> {odt.role = "parameter"}, %c: memref<?x40xf32> {odt.role = "user_output"}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x40xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x64xf32>, memref<64x40xf32>) outs(%c : memref<?x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batched product with A stored [batch, k, m] (an attention gradient's
// P^T dO) and 8 columns: a loop over the batch, one warp tile (2 x 1 mma
// tiles, its unit dims folded by canonicalization; the lanes stay
// innermost), and C loaded (no fill before it).
// TF32-LABEL: func.func @batched
// TF32: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c4, %c32)
// TF32-COUNT-4: memref.load %arg2
// TF32: scf.for %{{.*}} = %c0 to %{{.*}} step %c8
// TF32-COUNT-2: llvm.inline_asm "mma.sync.aligned.m16n8k8
// TF32-NOT: llvm.inline_asm
#at = affine_map<(b, m, n, k) -> (b, k, m)>
#bb = affine_map<(b, m, n, k) -> (b, k, n)>
#cb = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched(%a: memref<4x?x20xf32> {odt.role = "user_input"}, %b: memref<4x?x8xf32> {odt.role = "user_input"}, %c: memref<4x20x8xf32> {odt.role = "user_output"}) {
  linalg.generic {indexing_maps = [#at, #bb, #cb], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x?x20xf32>, memref<4x?x8xf32>) outs(%c : memref<4x20x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left to the FFMA kernels: an output that may share memory with an input
// (a view of an argument without odt.role), and a convolution (a map that
// is not a permutation).
// TF32-LABEL: func.func @may_alias
// TF32: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @may_alias(%a: memref<16x16xf32>, %b: memref<16x16xf32> {odt.role = "parameter"}, %c: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// TF32-LABEL: func.func @convolution
// TF32: linalg.generic
#x = affine_map<(o, f, w) -> (o + w)>
#w = affine_map<(o, f, w) -> (f, w)>
#y = affine_map<(o, f, w) -> (f, o)>
func.func @convolution(%x: memref<34xf32> {odt.role = "user_input"}, %w: memref<4x3xf32> {odt.role = "parameter"}, %y: memref<4x32xf32> {odt.role = "user_output"}) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<34xf32>, memref<4x3xf32>) outs(%y : memref<4x32xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A Gemm's bias broadcast into C before the product starts the sums (the
// broadcast goes), and the ReLU after it runs on each sum as it is stored
// (the epilogue: its generic goes; its output's allocation moves above).
// TF32-LABEL: func.func @bias_relu
// TF32: memref.alloc
// TF32-NOT: linalg.generic
// TF32: scf.parallel
// TF32: memref.load %arg3
// TF32: scf.for
// TF32: scf.if
// TF32: memref.store %{{.*}}, %arg2
// TF32: arith.maximumf
// TF32: memref.store
// TF32-NOT: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @bias_relu(%a: memref<?x64xf32> {odt.role = "user_input"}, %b: memref<64x40xf32> {odt.role = "parameter"}, %c: memref<?x40xf32> {odt.role = "user_output"}, %bias: memref<40xf32> {odt.role = "parameter"}) -> memref<?x40xf32> {
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<40xf32>) outs(%c : memref<?x40xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x64xf32>, memref<64x40xf32>) outs(%c : memref<?x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x64xf32>
  %r = memref.alloc(%rows) : memref<?x40xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x40xf32>) outs(%r : memref<?x40xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  }
  return %r : memref<?x40xf32>
}
