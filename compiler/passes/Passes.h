//===- Passes.h - odt's graph-level passes ----------------------*- C++ -*-===//

#ifndef ODT_COMPILER_PASSES_PASSES_H
#define ODT_COMPILER_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace odt::onnx {
class ShapeContext;
}

namespace odt {

#define GEN_PASS_DECL
#include "compiler/passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/passes/Passes.h.inc"

/// Shape inference over `func` into `context` (the InferShapes pass without
/// writing types back): argument shapes from their types and `onnx.dims`.
mlir::LogicalResult inferFunctionShapes(mlir::func::FuncOp func,
                                        onnx::ShapeContext &context);

} // namespace odt

#endif // ODT_COMPILER_PASSES_PASSES_H
