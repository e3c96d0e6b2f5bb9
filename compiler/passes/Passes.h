//===- Passes.h - odt's graph-level passes ----------------------*- C++ -*-===//

#ifndef ODT_COMPILER_PASSES_PASSES_H
#define ODT_COMPILER_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace odt {

#define GEN_PASS_DECL
#include "compiler/passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/passes/Passes.h.inc"

} // namespace odt

#endif // ODT_COMPILER_PASSES_PASSES_H
