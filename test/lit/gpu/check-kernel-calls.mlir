// RUN: odt-opt %s --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(odt-gpu-check-kernel-calls))'

// A function the kernels would need from elsewhere (here libdevice's) is an
// error: odt's PTX is complete in itself.
gpu.module @kernels {
  // expected-error @+1 {{a kernel calls '__nv_expf', which the PTX does not define (odt links no libdevice: each math op must become arithmetic or an NVPTX instruction)}}
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @defined(%x: f32) -> f32 {
    llvm.return %x : f32
  }
}
