// RUN: odt-opt %s --odt-gpu-record-kernels | FileCheck %s

// odt-gpu-record-kernels: each kernel of the NVVM module (functions marked
// nvvm.kernel, not the helpers they call) with its parameter count and each
// parameter's bytes (pointers 8, i1 a byte), in the module's order: the
// numbers the host's launches use.
// CHECK: module attributes {odt.gpu_kernels = [{name = "train_kernel", parameter_bytes = array<i64: 8, 8, 4>, parameters = 3 : i64}, {name = "eval_kernel", parameter_bytes = array<i64: 1>, parameters = 1 : i64}]}
module {
  gpu.module @kernels {
    llvm.func @train_kernel(%a: !llvm.ptr, %b: i64, %x: f32) attributes {nvvm.kernel} {
      llvm.return
    }
    llvm.func @helper(%a: i64) {
      llvm.return
    }
    llvm.func @eval_kernel(%flag: i1) attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
