//===- Elementwise.h - shared shape logic of the Elementwise family -*- C++ -*-===//
//
// ONNX multidirectional (numpy) broadcasting for the elementwise ops of
// ops/Elementwise.td, and small operand checks they share.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_DIALECTS_ONNX_OPS_ELEMENTWISE_H
#define ODT_DIALECTS_ONNX_OPS_ELEMENTWISE_H

#include "dialects/onnx/ops/OpHelpers.h"

namespace odt::onnx {

/// The broadcast shape of `operands` (absent optional ones skipped), left to
/// right. Two static dims other than 1 that differ are an error naming the
/// node and both shapes; symbolic dims that meet are unified.
mlir::FailureOr<Shape> inferBroadcastShape(ShapeContext &context,
                                           mlir::Operation *op,
                                           mlir::ValueRange operands);

/// Sets `result` to the broadcast shape of `operands` with `elementType`.
mlir::LogicalResult inferBroadcastResult(ShapeContext &context,
                                         mlir::Operation *op,
                                         mlir::ValueRange operands,
                                         mlir::Value result,
                                         mlir::Type elementType);

/// Fails unless every operand (absent ones skipped) has the element type of
/// the first one; `what` names them in the message ("A and B").
mlir::LogicalResult verifySameElementTypes(mlir::Operation *op,
                                           mlir::ValueRange operands,
                                           llvm::StringRef what);

/// Fails unless `value` (when present and ranked) holds a single element:
/// rank 0, or every dim statically 1.
mlir::LogicalResult verifyScalarOperand(mlir::Operation *op, mlir::Value value,
                                        llvm::StringRef what);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_OPS_ELEMENTWISE_H
