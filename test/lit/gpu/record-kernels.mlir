// RUN: odt-opt %s --odt-gpu-record-kernels | FileCheck %s

// odt-gpu-record-kernels: each kernel of the NVVM module (functions marked
// nvvm.kernel, not the helpers they call) with its parameter count, in the
// module's order: the numbers the host's launches use.
// CHECK: module attributes {odt.gpu_kernels = [{name = "train_kernel", parameters = 3 : i64}, {name = "eval_kernel", parameters = 1 : i64}]}
module {
  gpu.module @kernels {
    llvm.func @train_kernel(%a: !llvm.ptr, %b: !llvm.ptr, %n: i64) attributes {nvvm.kernel} {
      llvm.return
    }
    llvm.func @helper(%a: i64) {
      llvm.return
    }
    llvm.func @eval_kernel(%n: i64) attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
