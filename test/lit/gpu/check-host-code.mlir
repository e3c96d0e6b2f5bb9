// RUN: odt-opt %s --verify-diagnostics --split-input-file --pass-pipeline='builtin.module(odt-gpu-check-host-code)'

// A parallel loop left in a host function (one convert-parallel-loops-to-gpu
// could not map) would run on the host over device memory: an error.
func.func @train(%x: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  // expected-error @+1 {{'scf.parallel' stayed in the host code of 'train' instead of becoming a GPU kernel: the GPU backend could not map this work to blocks and threads}}
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    memref.store %one, %x[%i] : memref<256xf32>
    scf.reduce
  }
  return
}

// So is a copy between buffers (odt-gpu-copies-as-loops makes each a kernel
// before this check runs).
func.func @copy(%x: memref<256xf32>, %y: memref<256xf32>) {
  // expected-error @+1 {{'memref.copy' stayed in the host code of 'copy' instead of becoming a GPU kernel}}
  memref.copy %x, %y : memref<256xf32> to memref<256xf32>
  return
}

// A scalar read of a buffer on the host: the step's buffers are device
// memory. The host's own stack and constant globals are not.
memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
func.func @scalar(%x: memref<256xf32>, %i: index) -> f32 {
  %stack = memref.alloca() : memref<1xf32>
  %c0 = arith.constant 0 : index
  %table = memref.get_global @table : memref<2xf32>
  %a = memref.load %table[%c0] : memref<2xf32>
  memref.store %a, %stack[%c0] : memref<1xf32>
  %view = memref.subview %x[4] [8] [1] : memref<256xf32> to memref<8xf32, strided<[1], offset: 4>>
  // One error per function, at the first access.
  // expected-error @+1 {{'memref.load' in the host code of 'scalar' accesses device memory: the GPU backend left scalar work on a buffer to the host (1 more loads and stores there)}}
  %b = memref.load %view[%i] : memref<8xf32, strided<[1], offset: 4>>
  %alloc = memref.alloc() : memref<4xf32>
  memref.store %b, %alloc[%c0] : memref<4xf32>
  %c = memref.load %stack[%c0] : memref<1xf32>
  return %c : f32
}

// A helper's arguments are host memory when every call passes host memory
// (bufferization's dealloc_helper with the host's scratch arrays)...
func.func private @helper(%flags: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  memref.store %true, %flags[%c0] : memref<?xi1>
  return
}
func.func @calls_helper() {
  %scratch = memref.alloca() : memref<4xi1>
  %cast = memref.cast %scratch : memref<4xi1> to memref<?xi1>
  call @helper(%cast) : (memref<?xi1>) -> ()
  return
}

// ... and not when one call passes a buffer.
func.func private @helper_given_a_buffer(%flags: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  // expected-error @+1 {{'memref.store' in the host code of 'helper_given_a_buffer' accesses device memory}}
  memref.store %true, %flags[%c0] : memref<?xi1>
  return
}
func.func @calls_with_buffer(%buffer: memref<4xi1>) {
  %scratch = memref.alloca() : memref<4xi1>
  %cast = memref.cast %scratch : memref<4xi1> to memref<?xi1>
  call @helper_given_a_buffer(%cast) : (memref<?xi1>) -> ()
  %device = memref.cast %buffer : memref<4xi1> to memref<?xi1>
  call @helper_given_a_buffer(%device) : (memref<?xi1>) -> ()
  return
}

// -----

// A kernel handed the host's copy of a constant global.
module attributes {gpu.container_module} {
  memref.global "private" constant @weights : memref<4xf32> = dense<1.0>
  gpu.module @kernels {
    gpu.func @k(%w: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %w = memref.get_global @weights : memref<4xf32>
    // expected-error @+1 {{a kernel of 'launch' takes host memory as an argument (the host's copy of a constant global, which odt-gpu-constants-in-kernels did not move into the kernel, or the host's stack)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%w : memref<4xf32>)
    return
  }
}

// -----

// So is a view of one, and the host's stack.
module attributes {gpu.container_module} {
  memref.global "private" constant @weights : memref<4xf32> = dense<1.0>
  gpu.module @kernels {
    gpu.func @k(%w: memref<2xf32, strided<[1], offset: 2>>) kernel {
      gpu.return
    }
    gpu.func @s(%w: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %w = memref.get_global @weights : memref<4xf32>
    %view = memref.subview %w[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
    // expected-error @+1 {{a kernel of 'launch' takes host memory as an argument}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%view : memref<2xf32, strided<[1], offset: 2>>)
    %stack = memref.alloca() : memref<4xf32>
    // expected-error @+1 {{a kernel of 'launch' takes host memory as an argument}}
    gpu.launch_func @kernels::@s blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%stack : memref<4xf32>)
    return
  }
}
