// RUN: odt-opt %s --verify-diagnostics --pass-pipeline='builtin.module(odt-gpu-check-host-code)'

// A parallel loop left in a host function (one convert-parallel-loops-to-gpu
// could not map) would run on the host over device memory: an error.
func.func @train(%x: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  // expected-error @+1 {{'scf.parallel' stayed in the host code of 'train' instead of becoming a GPU kernel: the GPU backend could not map this loop nest to blocks and threads}}
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    memref.store %one, %x[%i] : memref<256xf32>
    scf.reduce
  }
  return
}
