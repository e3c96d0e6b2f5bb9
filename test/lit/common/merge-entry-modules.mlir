// RUN: odt-opt %s --split-input-file --odt-merge-entry-modules --verify-diagnostics | FileCheck %s

// Merge: train's and eval's modules each outlined a body named @body_0;
// eval's differs and is renamed with its call, eval's @same_0 and its
// caller @calls_same are train's and are folded, in two rounds (the
// callers only match once the callees are one). The shared declaration
// and the equal constant are kept once; the differing constant is renamed.
// Attributes: a key naming an entry point comes from its own module.
// CHECK-LABEL: module attributes {odt.arena = {eval = "eval's plan", train = "train's plan"}, odt.target = "same"}
// CHECK-NEXT:    func.func private @external(f32) -> f32
// CHECK-NEXT:    memref.global "private" constant @constant_0 : memref<2xf32> = dense<1.000000e+00>
// CHECK-NEXT:    memref.global "private" constant @constant_1 : memref<2xf32> = dense<2.000000e+00>
// CHECK-NEXT:    func.func @train(
// CHECK-NEXT:      call @body_0(
// CHECK-NEXT:      call @calls_same(
// CHECK-NEXT:      memref.get_global @constant_0
// CHECK-NEXT:      memref.get_global @constant_1
// CHECK:         func.func private @body_0(
// CHECK-NEXT:      arith.addf
// CHECK:         func.func private @same_0(
// CHECK:         func.func private @calls_same(
// CHECK:         memref.global "private" constant @constant_1.1 : memref<2xf32> = dense<3.000000e+00>
// CHECK-NEXT:    func.func @eval(
// CHECK-NEXT:      call @body_0.1(
// CHECK-NEXT:      call @calls_same(
// CHECK-NEXT:      memref.get_global @constant_0
// CHECK-NEXT:      memref.get_global @constant_1.1
// CHECK:         func.func private @body_0.1(
// CHECK-NEXT:      arith.mulf
// CHECK-NOT:     @same_1
// CHECK-NOT:     @calls_same_eval
module {
  module attributes {odt.arena = {eval = "stale", train = "train's plan"}, odt.target = "same"} {
    func.func private @external(f32) -> f32
    memref.global "private" constant @constant_0 : memref<2xf32> = dense<1.0>
    memref.global "private" constant @constant_1 : memref<2xf32> = dense<2.0>
    func.func @train(%x: f32) -> f32 {
      %a = call @body_0(%x) : (f32) -> f32
      %b = call @calls_same(%a) : (f32) -> f32
      %c = memref.get_global @constant_0 : memref<2xf32>
      %d = memref.get_global @constant_1 : memref<2xf32>
      return %b : f32
    }
    func.func private @body_0(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
    func.func private @same_0(%x: f32) -> f32 {
      %y = func.call @external(%x) : (f32) -> f32
      return %y : f32
    }
    func.func private @calls_same(%x: f32) -> f32 {
      %y = call @same_0(%x) : (f32) -> f32
      return %y : f32
    }
  }
  module attributes {odt.arena = {eval = "eval's plan", train = "stale"}, odt.target = "same"} {
    func.func private @external(f32) -> f32
    memref.global "private" constant @constant_0 : memref<2xf32> = dense<1.0>
    memref.global "private" constant @constant_1 : memref<2xf32> = dense<3.0>
    func.func @eval(%x: f32) -> f32 {
      %a = call @body_0(%x) : (f32) -> f32
      %b = call @calls_same_eval(%a) : (f32) -> f32
      %c = memref.get_global @constant_0 : memref<2xf32>
      %d = memref.get_global @constant_1 : memref<2xf32>
      return %b : f32
    }
    func.func private @body_0(%x: f32) -> f32 {
      %y = arith.mulf %x, %x : f32
      return %y : f32
    }
    func.func private @same_1(%x: f32) -> f32 {
      %y = func.call @external(%x) : (f32) -> f32
      return %y : f32
    }
    func.func private @calls_same_eval(%x: f32) -> f32 {
      %y = call @same_1(%x) : (f32) -> f32
      return %y : f32
    }
  }
}

// -----

// Two modules that define one public symbol differently: an internal
// error, not a silent choice.
module {
  module {
    func.func @entry(%x: f32) -> f32 {
      return %x : f32
    }
  }
  module {
    // expected-error @+1 {{internal error: two entry points' modules define 'entry'}}
    func.func @entry(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
  }
}

// -----

// Values that are not keyed by an entry point must agree.
// expected-error @+1 {{internal error: the entry points' modules disagree on 'odt.target'}}
module {
  module attributes {odt.target = "one"} {
  }
  module attributes {odt.target = "other"} {
  }
}

// -----

// LLVM dialect globals are local by their linkage (their MLIR visibility
// stays public): a private one that differs is renamed, not an error.
// CHECK-LABEL: module {
// CHECK-NEXT:    llvm.mlir.global private constant @__constant_xi64(1 : i64)
// CHECK-NEXT:    llvm.func @train() -> !llvm.ptr {
// CHECK-NEXT:      llvm.mlir.addressof @__constant_xi64 : !llvm.ptr
// CHECK:         llvm.mlir.global private constant @__constant_xi64.1(2 : i64)
// CHECK-NEXT:    llvm.func @eval() -> !llvm.ptr {
// CHECK-NEXT:      llvm.mlir.addressof @__constant_xi64.1 : !llvm.ptr
module {
  module {
    llvm.mlir.global private constant @__constant_xi64(1 : i64) : i64
    llvm.func @train() -> !llvm.ptr {
      %0 = llvm.mlir.addressof @__constant_xi64 : !llvm.ptr
      llvm.return %0 : !llvm.ptr
    }
  }
  module {
    llvm.mlir.global private constant @__constant_xi64(2 : i64) : i64
    llvm.func @eval() -> !llvm.ptr {
      %0 = llvm.mlir.addressof @__constant_xi64 : !llvm.ptr
      llvm.return %0 : !llvm.ptr
    }
  }
}
