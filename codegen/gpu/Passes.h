//===- Passes.h - the GPU backend's passes ----------------------*- C++ -*-===//

#ifndef ODT_CODEGEN_GPU_PASSES_H
#define ODT_CODEGEN_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace odt {

#define GEN_PASS_DECL
#include "codegen/gpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/gpu/Passes.h.inc"

} // namespace odt

#endif // ODT_CODEGEN_GPU_PASSES_H
