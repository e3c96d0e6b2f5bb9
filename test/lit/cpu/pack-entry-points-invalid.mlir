// RUN: odt-opt %s --split-input-file --verify-diagnostics --odt-pack-entry-points | FileCheck %s

// odt-pack-entry-points on hand-written LLVM-dialect modules: the default
// prefix, and the errors.

// The default prefix is odt_model; a function that is not a C interface
// becomes internal.
// CHECK-LABEL: llvm.func internal @helper()
// CHECK-LABEL: llvm.func @odt_model_eval(
// CHECK:         llvm.call @_mlir_ciface_eval(
llvm.func @helper() {
  llvm.return
}
llvm.func @_mlir_ciface_eval(%arg0: !llvm.ptr) {
  llvm.return
}

// -----

llvm.func @odt_model_eval(%arg0: !llvm.ptr) {
  llvm.return
}
// expected-error @+1 {{symbol 'odt_model_eval' already exists}}
llvm.func @_mlir_ciface_eval(%arg0: !llvm.ptr) {
  llvm.return
}

// -----

// expected-error @+1 {{entry point 'eval' has a non-pointer C-interface argument}}
llvm.func @_mlir_ciface_eval(%arg0: i64) {
  llvm.return
}
