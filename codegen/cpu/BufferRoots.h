//===- BufferRoots.h - the buffer a view was cut from ----------*- C++ -*-===//
//
// The CPU passes that reason about buffers after odt-plan-arena (which ops
// may be reordered or chunked, whether an input reads an output) follow a
// memref through its views to the buffer it was cut from.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_BUFFERROOTS_H
#define ODT_CODEGEN_CPU_BUFFERROOTS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace odt {

/// The buffer a view was cut from (through subviews, reshapes and casts).
/// `arenaViews` says whether a memref.view counts as a buffer of its own.
/// That holds among the operands of one op: odt-plan-arena places buffers
/// that are live together at disjoint offsets of the arena. Across ops it
/// does not: a buffer whose life has ended shares its offset with a later
/// one, so there every view of the arena is the arena.
inline mlir::Value rootBuffer(mlir::Value value, bool arenaViews) {
  while (mlir::Operation *definition = value.getDefiningOp()) {
    if (!mlir::isa<mlir::memref::SubViewOp, mlir::memref::CastOp,
                   mlir::memref::ReinterpretCastOp,
                   mlir::memref::CollapseShapeOp, mlir::memref::ExpandShapeOp>(
            definition) &&
        (arenaViews || !mlir::isa<mlir::memref::ViewOp>(definition)))
      break;
    value = definition->getOperand(0);
  }
  return value;
}

} // namespace odt

#endif // ODT_CODEGEN_CPU_BUFFERROOTS_H
