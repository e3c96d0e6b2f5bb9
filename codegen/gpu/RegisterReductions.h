//===- RegisterReductions.h - a reduction's start and epilogue -*- C++ -*-===//
//
// What surrounds a reduction whose threads keep their sums in registers:
// the op that wrote its output just before it (whose value becomes the
// sums' start) and the elementwise op right after it (run on each sum as
// it is stored). odt-gpu-accumulate-in-registers (its FFMA loops) and
// odt-gpu-tensor-core-products (mma.sync) share these rules; they are
// defined in AccumulateInRegisters.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_GPU_REGISTERREDUCTIONS_H
#define ODT_CODEGEN_GPU_REGISTERREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace odt {

/// The ops that write every element of `op`'s outputs just before it and
/// that the reduction can replace, one per output or null: a linalg.fill,
/// or an elementwise generic over the same elements that does not read the
/// output and whose inputs are separate from every output (a Gemm's bias
/// broadcast). The caller erases them once the reduction starts from them.
llvm::SmallVector<mlir::Operation *>
replaceableInitializers(mlir::linalg::GenericOp op);

/// An elementwise op that can run in the reduction's threads on each sum
/// as it is stored (a bias, an activation), or null: the next op after
/// `op` (only ops free of memory effects and allocations between), with
/// only parallel dims over the same elements, reading `op`'s output at the
/// element the reduction wrote it, its other operands separate memory.
mlir::linalg::GenericOp findEpilogue(mlir::linalg::GenericOp op);

/// Moves the ops between `op` and `epilogue` (findEpilogue's) above `op`,
/// so that the epilogue's operands are defined where the reduction runs it.
void hoistAboveReduction(mlir::linalg::GenericOp op,
                         mlir::linalg::GenericOp epilogue);

/// The epilogue for the element at `parallelDims` (`op`'s parallel dims, in
/// its order), `sum` being the reduction's value there: its results stored.
void emitEpilogue(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                  mlir::linalg::GenericOp epilogue,
                  mlir::ValueRange parallelDims, mlir::Value sum);

/// The value output `index` of `op` starts at for the element at
/// `parallelDims`: its initializer's (a fill's value, or an elementwise
/// op's result there), else the element loaded.
mlir::Value startValue(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                       unsigned index, mlir::Operation *initializer,
                       mlir::ValueRange parallelDims);

} // namespace odt

#endif // ODT_CODEGEN_GPU_REGISTERREDUCTIONS_H
