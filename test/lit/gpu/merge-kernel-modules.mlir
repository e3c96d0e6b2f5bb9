// RUN: odt-opt %s --odt-gpu-merge-kernel-modules | FileCheck %s

// Two outlined kernels, each in its own gpu.module, end in one module named
// `kernels`; the launches name it.
// CHECK-LABEL: func.func @step
// CHECK:         gpu.launch_func @kernels::@step_kernel
// CHECK:         gpu.launch_func @kernels::@step_kernel_0
// CHECK:       gpu.module @kernels {
// CHECK:         gpu.func @step_kernel(
// CHECK:         gpu.func @step_kernel_0(
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  func.func @step(%a: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%a : memref<8xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%a : memref<8xf32>)
    return
  }
  gpu.module @step_kernel {
    gpu.func @step_kernel(%a: memref<8xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel_0(%a: memref<8xf32>) kernel {
      gpu.return
    }
  }
}
