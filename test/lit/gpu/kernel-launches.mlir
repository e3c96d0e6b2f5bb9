// RUN: odt-opt %s --split-input-file --verify-diagnostics --odt-convert-to-llvm | FileCheck %s
// RUN: odt-opt %s --split-input-file --verify-diagnostics --odt-convert-to-llvm --reconcile-unrealized-casts --odt-pack-entry-points | FileCheck %s --check-prefix=PACK

// A GPU build's host code: each gpu.launch_func becomes a call of the
// runtime's launcher with the kernel's number in odt.gpu_kernels, the grid
// and block extents, the dynamic shared memory, and the addresses of its
// parameters: a memref is its descriptor's fields (allocated and aligned
// pointers, offset, sizes, strides: 7 for a 2-D memref), as the kernel's
// signature has them after convert-gpu-to-nvvm.
// CHECK:       llvm.func @__odt_gpu_launch(i32, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr, i32)
// CHECK-LABEL: llvm.func @train(
// CHECK:         %[[SAVED:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK:         %[[STORAGE:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, ptr, ptr, i64, i64, i64, i64, i64)>
// CHECK:         %[[ADDRESSES:.*]] = llvm.alloca %{{.*}} x !llvm.array<8 x ptr>
// CHECK-COUNT-8: llvm.store
// CHECK:         llvm.store
// CHECK:         %[[KERNEL:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[COUNT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK:         llvm.call @__odt_gpu_launch(%[[KERNEL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ADDRESSES]], %[[COUNT]])
// CHECK:         llvm.intr.stackrestore %[[SAVED]]

// The launcher is a call through a pointer that <prefix>_set_launcher sets;
// it starts as a function that traps (a runtime that installs no launcher
// must not run the steps as if they had computed something).
// PACK:       llvm.mlir.global internal @odt_model_launch_fn() {{.*}} : !llvm.ptr {
// PACK-NEXT:    llvm.mlir.addressof @odt_model_no_launcher
// PACK:       llvm.func internal @__odt_gpu_launch(
// PACK:         llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// PACK:         llvm.call %{{.*}}(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9)
// PACK:       llvm.func internal @odt_model_no_launcher(
// PACK-NEXT:    llvm.intr.trap
// PACK-NEXT:    llvm.unreachable
// PACK:       llvm.func @odt_model_set_launcher(%arg0: !llvm.ptr)
module attributes {gpu.container_module,
    odt.gpu_kernels = [{name = "train_kernel", parameters = 3 : i64},
                       {name = "train_kernel_0", parameters = 8 : i64,
                        parameter_bytes = array<i64: 8, 8, 8, 8, 8, 8, 8, 8>}]} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @train(%x: memref<?x4xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %x, %c0 : memref<?x4xf32>
    gpu.launch_func @kernels::@train_kernel_0 blocks in (%n, %c1, %c1) threads in (%c256, %c1, %c1) args(%n : index, %x : memref<?x4xf32>)
    return
  }
}

// -----

// A launch whose packed parameters differ from the kernel's count (the
// host code and the kernels would disagree on the ABI): an error.
module attributes {gpu.container_module,
    odt.gpu_kernels = [{name = "train_kernel", parameters = 3 : i64}]} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @train(%n: index) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel 'train_kernel' takes 3 parameters but its launch packs 1}}
    gpu.launch_func @kernels::@train_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : index)
    return
  }
}

// -----

// A kernel the table does not name.
module attributes {gpu.container_module, odt.gpu_kernels = []} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @train() {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel 'train_kernel' is not in odt.gpu_kernels}}
    gpu.launch_func @kernels::@train_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// A field whose size is not the kernel parameter's (cuLaunchKernel would
// read past it, or too little): an error.
module attributes {gpu.container_module,
    odt.gpu_kernels = [{name = "train_kernel", parameters = 1 : i64,
                        parameter_bytes = array<i64: 8>}]} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @train(%x: f32) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel 'train_kernel' parameter 0 is 8 bytes but its launch packs 'f32'}}
    gpu.launch_func @kernels::@train_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)
    return
  }
}
