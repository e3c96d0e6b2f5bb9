// RUN: odt-opt %s --split-input-file --odt-split-entry-modules | FileCheck %s --check-prefix=SPLIT
// RUN: odt-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(odt-split-entry-modules,builtin.module(symbol-dce),odt-merge-entry-modules)" \
// RUN:   | FileCheck %s --check-prefix=ROUND

// Split: one nested module per public function with a body, each with the
// module's attributes and a copy of every other op; the declaration and
// the private helper go to both. Round trip (symbol-dce in between): each
// entry keeps what it uses, and the merged module has each symbol once.
// SPLIT-LABEL: module attributes {odt.note = "kept"}
// SPLIT-NEXT:    module attributes {odt.note = "kept"}
// SPLIT-NEXT:      func.func private @external(f32) -> f32
// SPLIT-NEXT:      func.func @first(
// SPLIT:           func.func private @helper(
// SPLIT-NOT:       func.func @second(
// SPLIT:         module attributes {odt.note = "kept"}
// SPLIT-NEXT:      func.func private @external(f32) -> f32
// SPLIT-NEXT:      func.func private @helper(
// SPLIT:           func.func @second(
// SPLIT-NOT:     func.func
// ROUND-LABEL: module attributes {odt.note = "kept"}
// ROUND-NEXT:    func.func private @external(f32) -> f32
// ROUND-NEXT:    func.func @first(
// ROUND:         func.func private @helper(
// ROUND:         func.func @second(
// ROUND-NOT:     func.func
module attributes {odt.note = "kept"} {
  func.func private @external(f32) -> f32
  func.func @first(%x: f32) -> f32 {
    %y = func.call @helper(%x) : (f32) -> f32
    return %y : f32
  }
  func.func private @helper(%x: f32) -> f32 {
    %y = func.call @external(%x) : (f32) -> f32
    return %y : f32
  }
  func.func @second(%x: f32) -> f32 {
    %y = func.call @helper(%x) : (f32) -> f32
    %z = arith.addf %y, %x : f32
    return %z : f32
  }
}


// -----

// Without an entry point, one nested module holds everything (the nested
// pipeline still runs on it), and the round trip gives it back.
// SPLIT-LABEL: module {
// SPLIT-NEXT:    module {
// SPLIT-NEXT:      func.func private @helper(
// SPLIT:           memref.global @kept : memref<2xf32> = dense<1.000000e+00>
// SPLIT-NEXT:    }
// SPLIT-NEXT:  }
// ROUND-LABEL: module {
// ROUND-NEXT:    memref.global @kept : memref<2xf32> = dense<1.000000e+00>
// ROUND-NEXT:  }
module {
  func.func private @helper(%x: f32) -> f32 {
    return %x : f32
  }
  memref.global @kept : memref<2xf32> = dense<1.0>
}
