// RUN: odt-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(odt-gpu-lower-kernel-math))' | FileCheck %s
// RUN: odt-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(odt-gpu-lower-kernel-math, convert-gpu-to-nvvm, reconcile-unrealized-casts, odt-gpu-check-kernel-calls))' | FileCheck %s --check-prefix=NVVM

// Kernel math without libdevice: exp and tanh as polynomials, powf through
// exp and log (polynomials too), sqrt, floor and fma as LLVM intrinsics
// that NVPTX has instructions for. After convert-gpu-to-nvvm nothing calls
// an external function.
// CHECK-LABEL: gpu.func @math
// CHECK-NOT:     math.
// CHECK-DAG:     llvm.call_intrinsic "llvm.sqrt"
// CHECK-DAG:     llvm.call_intrinsic "llvm.floor"
// CHECK-DAG:     llvm.call_intrinsic "llvm.fma"
// CHECK-NOT:     math.
// CHECK:         gpu.return
// NVVM-LABEL: gpu.module @kernels
// NVVM-NOT:     __nv_
// NVVM:         llvm.func @math
gpu.module @kernels {
  gpu.func @math(%x: f32, %y: f32) -> f32 {
    %e = math.exp %x : f32
    %t = math.tanh %e : f32
    %p = math.powf %t, %y : f32
    %s = math.sqrt %p : f32
    %f = math.floor %s : f32
    %m = math.fma %f, %x, %y : f32
    gpu.return %m : f32
  }
}

// -----

// f64 transcendentals have no polynomial: an error, not a libdevice call.
gpu.module @kernels {
  gpu.func @exp64(%x: f64) -> f64 {
    // expected-error @+1 {{'math.exp' in a GPU kernel: odt has no lowering for it without libdevice}}
    %e = math.exp %x : f64
    gpu.return %e : f64
  }
}
