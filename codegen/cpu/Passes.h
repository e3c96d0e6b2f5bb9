//===- Passes.h - the CPU backend's passes ----------------------*- C++ -*-===//

#ifndef ODT_CODEGEN_CPU_PASSES_H
#define ODT_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace odt {

#define GEN_PASS_DECL
#include "codegen/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/cpu/Passes.h.inc"

/// Names of the functions odt-outline-parallel-loops makes (a parallel
/// loop's body over a range of iterations, which odt-pack-entry-points
/// turns into a task) and odt-outline-serial-loops makes (a serial nest),
/// followed by a number.
constexpr llvm::StringLiteral kParallelBodyPrefix = "__odt_par_";
constexpr llvm::StringLiteral kSerialNestPrefix = "__odt_loop_";

/// Marks the scf.if choices with which odt-parallelize-elementwise runs
/// many ops (the optimizer's updates of every parameter) in one parallel
/// loop: odt-outline-serial-loops moves the loops in their branches into
/// functions of their own.
constexpr llvm::StringLiteral kMergedOpChoice = "odt.merged_op_choice";

} // namespace odt

#endif // ODT_CODEGEN_CPU_PASSES_H
