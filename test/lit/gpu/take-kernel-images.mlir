// RUN: odt-opt %s --split-input-file --verify-diagnostics --odt-gpu-take-kernel-images | FileCheck %s

// odt-gpu-take-kernel-images: the PTX for each chip leaves the module for
// odt.gpu_images (the descriptor's), and the binary is gone, so that LLVM
// translation sees host code only.
// CHECK:     module attributes {odt.gpu_images = [{chip = "sm_80", ptx = "PTX for sm_80"}, {chip = "sm_90", ptx = "PTX for sm_90"}]}
// CHECK-NOT: gpu.binary
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "PTX for sm_80">,
                       #gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX for sm_90">]
  llvm.func @train() {
    llvm.return
  }
}

// -----

// A launch left in the host code is an error there.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @train() {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{a kernel launch was left in the host code after its lowering to a call of the runtime's launcher}}
    gpu.launch_func @kernels::@train_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// Anything but PTX (a fatbin made by another pipeline) is refused.
module attributes {gpu.container_module} {
  // expected-error @+1 {{a kernel image that is not NVVM PTX}}
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, "fatbin">]
}

// -----

// A GPU build whose steps launched nothing: a clear error, not a model
// without kernels.
// expected-error @+1 {{a GPU build with no kernels: every step's work stayed in the host code; compile it for the CPU}}
module {
  llvm.func @train() {
    llvm.return
  }
}
