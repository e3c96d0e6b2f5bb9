// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-fuse-gradient-accumulation))' | FileCheck %s

#rows = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

// A bias gradient (fill + column sum into a fresh buffer) and ORT's
// accumulation of it, with other ops in between that do not touch the
// buffers. After a reset the fill and the sum write the buffer itself;
// otherwise everything runs as before; both where the sum was (the fill
// moves down to it). The flag, read later from its argument, is read
// before them instead; the fresh gradient's buffer is allocated on the
// path that uses it.
// CHECK-LABEL: func.func @bias_gradient
// CHECK-SAME:    (%[[DY:.*]]: memref<64x512xf32>, %[[BUF:.*]]: memref<512xf32>, %[[RESET:.*]]: memref<1xi1>, %[[OTHER:.*]]: memref<64x512xf32>)
// CHECK:         %[[FLAG:.*]] = memref.load %[[RESET]]
// CHECK-NEXT:    linalg.copy ins(%[[DY]] {{.*}} outs(%[[OTHER]]
// CHECK-NEXT:    scf.if %[[FLAG]] {
// CHECK-NEXT:      linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<512xf32>)
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[DY]] : memref<64x512xf32>) outs(%[[BUF]] : memref<512xf32>)
// CHECK:         } else {
// CHECK-NEXT:      %[[G:.*]] = memref.alloc() : memref<512xf32>
// CHECK-NEXT:      linalg.fill ins(%{{.*}} : f32) outs(%[[G]] : memref<512xf32>)
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[DY]] : memref<64x512xf32>) outs(%[[G]] : memref<512xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[BUF]], %[[G]] : memref<512xf32>, memref<512xf32>) outs(%[[BUF]] : memref<512xf32>)
// CHECK:             arith.select %[[FLAG]]
// CHECK:           memref.dealloc %[[G]]
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.copy ins(%[[DY]] {{.*}} outs(%[[OTHER]]
// CHECK-NEXT:    return
func.func @bias_gradient(%dy: memref<64x512xf32>, %buffer: memref<512xf32>,
                         %reset: memref<1xi1>, %other: memref<64x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %g = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<512xf32>)
  linalg.copy ins(%dy : memref<64x512xf32>) outs(%other : memref<64x512xf32>)
  linalg.generic {indexing_maps = [#rows, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<64x512xf32>) outs(%g : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%dy : memref<64x512xf32>) outs(%other : memref<64x512xf32>)
  %flag = memref.load %reset[%c0] : memref<1xi1>
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%buffer, %g : memref<512xf32>, memref<512xf32>) outs(%buffer : memref<512xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %pick = arith.select %flag, %new, %sum : f32
    linalg.yield %pick : f32
  }
  memref.dealloc %g : memref<512xf32>
  return
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// Left alone: the fresh gradient is read again after the accumulation; the
// buffer is read by something else too; an accumulation without a reset
// flag; a view of the gradient made by its producers and read afterwards.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     scf.if
func.func @untouched(%x: memref<512xf32>, %buffer: memref<512xf32>,
                     %buffer2: memref<512xf32>, %flag: i1, %out: memref<512xf32>,
                     %buffer3: memref<512xf32>) {
  %g = memref.alloc() : memref<512xf32>
  linalg.copy ins(%x : memref<512xf32>) outs(%g : memref<512xf32>)
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%buffer, %g : memref<512xf32>, memref<512xf32>) outs(%buffer : memref<512xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %pick = arith.select %flag, %new, %sum : f32
    linalg.yield %pick : f32
  }
  linalg.copy ins(%g : memref<512xf32>) outs(%out : memref<512xf32>)
  %h = memref.alloc() : memref<512xf32>
  linalg.copy ins(%x : memref<512xf32>) outs(%h : memref<512xf32>)
  linalg.copy ins(%buffer2 : memref<512xf32>) outs(%out : memref<512xf32>)
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%buffer2, %h : memref<512xf32>, memref<512xf32>) outs(%buffer2 : memref<512xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %pick = arith.select %flag, %new, %sum : f32
    linalg.yield %pick : f32
  }
  %k = memref.alloc() : memref<512xf32>
  linalg.copy ins(%x : memref<512xf32>) outs(%k : memref<512xf32>)
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%out, %k : memref<512xf32>, memref<512xf32>) outs(%out : memref<512xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    linalg.yield %sum : f32
  }
  %m = memref.alloc() : memref<512xf32>
  %half = memref.subview %m[0] [256] [1] : memref<512xf32> to memref<256xf32, strided<[1]>>
  linalg.copy ins(%x : memref<512xf32>) outs(%m : memref<512xf32>)
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%buffer3, %m : memref<512xf32>, memref<512xf32>) outs(%buffer3 : memref<512xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %pick = arith.select %flag, %new, %sum : f32
    linalg.yield %pick : f32
  }
  %back = memref.subview %out[0] [256] [1] : memref<512xf32> to memref<256xf32, strided<[1]>>
  linalg.copy ins(%half : memref<256xf32, strided<[1]>>) outs(%back : memref<256xf32, strided<[1]>>)
  memref.dealloc %g : memref<512xf32>
  memref.dealloc %h : memref<512xf32>
  memref.dealloc %k : memref<512xf32>
  memref.dealloc %m : memref<512xf32>
  return
}

// -----

// BatchNorm's gradients: the bias and scale gradients (column sums into
// fresh buffers) are both read by the input gradient, so the bias
// gradient's run holds the scale gradient's choice. Inside the outer
// choice the flag is known: one choice remains, the input gradient is
// computed once per branch (it was four times, two of them dead), after a
// reset from the buffers themselves, otherwise from the fresh gradients
// before they are accumulated.
// CHECK-LABEL: func.func @batchnorm_gradients
// CHECK-SAME:    (%[[DY:[^:]*]]: {{[^,]*}}, %[[XHAT:[^:]*]]: {{[^,]*}}, %[[BIAS:[^:]*]]: {{[^,]*}}, %[[SCALE:[^:]*]]: {{[^,]*}}, %{{[^:]*}}: {{[^,]*}}, %[[DX:[^:]*]]:
// CHECK:         scf.if %[[FLAG:.*]] {
// CHECK-NOT:       scf.if
// CHECK:           linalg.generic {{.*}} ins(%[[DY]], %[[XHAT]], %[[BIAS]], %[[SCALE]] : {{.*}}) outs(%[[DX]] :
// CHECK-NOT:       scf.if
// CHECK:         } else {
// CHECK-NOT:       scf.if
// CHECK:           %[[GB:.*]] = memref.alloc()
// CHECK-NOT:       scf.if
// CHECK:           %[[GS:.*]] = memref.alloc()
// CHECK-NOT:       scf.if
// CHECK:           linalg.generic {{.*}} ins(%[[DY]], %[[XHAT]], %[[GB]], %[[GS]] : {{.*}}) outs(%[[DX]] :
// CHECK-NOT:       scf.if
// CHECK:           arith.select %[[FLAG]]
// CHECK:           memref.dealloc %[[GS]]
// CHECK:           arith.select %[[FLAG]]
// CHECK:           memref.dealloc %[[GB]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func @batchnorm_gradients(%dy: memref<64x16xf32>, %xhat: memref<64x16xf32>,
                               %bias: memref<16xf32>, %scale: memref<16xf32>,
                               %reset: memref<1xi1>, %dx: memref<64x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %gb = memref.alloc() : memref<16xf32>
  %gs = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%gb : memref<16xf32>)
  linalg.fill ins(%zero : f32) outs(%gs : memref<16xf32>)
  linalg.generic {indexing_maps = [#rows, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<64x16xf32>) outs(%gb : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #rows, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy, %xhat : memref<64x16xf32>, memref<64x16xf32>) outs(%gs : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #rows, #col, #col, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %xhat, %gb, %gs : memref<64x16xf32>, memref<64x16xf32>, memref<16xf32>, memref<16xf32>)
      outs(%dx : memref<64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %sb: f32, %ss: f32, %o: f32):
    %p = arith.mulf %b, %ss : f32
    %q = arith.subf %a, %sb : f32
    %r = arith.subf %q, %p : f32
    linalg.yield %r : f32
  }
  %flag = memref.load %reset[%c0] : memref<1xi1>
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%scale, %gs : memref<16xf32>, memref<16xf32>) outs(%scale : memref<16xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %pick = arith.select %flag, %new, %sum : f32
    linalg.yield %pick : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%bias, %gb : memref<16xf32>, memref<16xf32>) outs(%bias : memref<16xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %sum = arith.addf %old, %new : f32
    %pick = arith.select %flag, %new, %sum : f32
    linalg.yield %pick : f32
  }
  memref.dealloc %gs : memref<16xf32>
  memref.dealloc %gb : memref<16xf32>
  return
}
