// RUN: odt-opt %s --odt-approximate-math | FileCheck %s

// exp becomes arithmetic (no libm call, so the loop around it vectorizes);
// log keeps its lowering.
// CHECK-LABEL: func.func @exp_and_log
// CHECK-NOT:     math.exp
// CHECK:         arith.mulf
// CHECK:         math.log
func.func @exp_and_log(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, f32) {
  %e = math.exp %x : vector<16xf32>
  %l = math.log %y : f32
  return %e, %l : vector<16xf32>, f32
}
