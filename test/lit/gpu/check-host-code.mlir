// RUN: odt-opt %s --verify-diagnostics --pass-pipeline='builtin.module(odt-gpu-check-host-code)'

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
