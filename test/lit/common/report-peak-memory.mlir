// RUN: odt-opt %s --odt-report-peak-memory | FileCheck %s

// Peak live bytes per entry, as a formula of the entry's named dims: %a and
// %b (64 + 4*batch*16 bytes) live together, %c only after %a is freed;
// the loop's inner buffer counts while the loop runs; a buffer whose size
// comes from data is counted apart.
// CHECK: module attributes {odt.peak_memory = {sized_by_data = "0 bytes + 1 buffer(s) sized by data at run time", step = "64*batch + 192 bytes", through_reshape_target = "512*batch bytes", through_views = "384*batch bytes", unusual_elements = "128 bytes"}}
func.func @step(%x: memref<?x16xf32> {onnx.dims = ["batch", 16]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x16xf32>
  memref.dealloc %a : memref<16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
    memref.dealloc %t : memref<32xf32>
  }
  memref.dealloc %c : memref<8xf32>
  memref.dealloc %b : memref<?x16xf32>
  return
}

func.func @sized_by_data(%shape: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %n = memref.load %shape[%c0] : memref<1xindex>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// Sizes traced through the buffers they are read from: an allocation's size
// operand, a collapse_shape of it (batch*4 rows of 16 floats, twice).
func.func @through_views(%x: memref<?x16xf32> {onnx.dims = ["batch", 16]}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x4x16xf32>
  %flat = memref.collapse_shape %a [[0, 1], [2]] : memref<?x4x16xf32> into memref<?x16xf32>
  %rows = memref.dim %flat, %c0 : memref<?x16xf32>
  %b = memref.alloc(%rows) : memref<?x8xf32>
  memref.dealloc %b : memref<?x8xf32>
  memref.dealloc %a : memref<?x4x16xf32>
  return
}

// A Reshape target's inferred dim (elements / product of the known dims,
// exact division: batch*4 rows of 16 floats) and a dim read through a
// subview of it: 256*batch bytes, twice.
func.func @through_reshape_target(%x: memref<?x64xf32> {onnx.dims = ["batch", 64]}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %elements = arith.muli %n, %c64 : index
  %rows = arith.divsi %elements, %c16 : index
  %a = memref.alloc(%rows) : memref<?x16xf32>
  %half = memref.subview %a[0, 0] [%rows, 8] [1, 1] : memref<?x16xf32> to memref<?x8xf32, strided<[16, 1]>>
  %again = memref.dim %half, %c0 : memref<?x8xf32, strided<[16, 1]>>
  %b = memref.alloc(%again) : memref<?x16xf32>
  memref.dealloc %b : memref<?x16xf32>
  memref.dealloc %a : memref<?x16xf32>
  return
}

// Index elements count 8 bytes, vector elements all their lanes: 32 + 64
// bytes, each rounded up to 64.
func.func @unusual_elements() {
  %a = memref.alloc() : memref<4xindex>
  %b = memref.alloc() : memref<2xvector<8xf32>>
  memref.dealloc %b : memref<2xvector<8xf32>>
  memref.dealloc %a : memref<4xindex>
  return
}
