//===- OpHelpers.h - shared pieces of op verifiers and shapes ---*- C++ -*-===//

#ifndef ODT_DIALECTS_ONNX_OPS_OPHELPERS_H
#define ODT_DIALECTS_ONNX_OPS_OPHELPERS_H

#include "dialects/onnx/ONNXOps.h"

namespace odt::onnx {

/// Emits "node 'NAME' (onnx.Op): " followed by the caller's message.
mlir::InFlightDiagnostic emitNodeError(mlir::Operation *op);

/// The rank of a ranked tensor value, or std::nullopt for unranked/none.
std::optional<int64_t> getRank(mlir::Value value);

/// Fails (with a node-located error) unless `value` has rank `rank` when its
/// rank is known.
mlir::LogicalResult verifyRank(mlir::Operation *op, mlir::Value value,
                               int64_t rank, llvm::StringRef what);

/// Fails unless the two values have the same element type.
mlir::LogicalResult verifySameElementType(mlir::Operation *op, mlir::Value a,
                                          mlir::Value b, llvm::StringRef what);

/// Result `result` gets the shape of `source` (elementwise ops).
/// Records the known values of a Concat(Training) result from its inputs
/// (shape computations such as Reshape targets).
void propagateConcatValues(ShapeContext &context, mlir::ValueRange inputs,
                           int64_t axis, mlir::Value concatResult);

mlir::LogicalResult inferSameShape(ShapeContext &context, mlir::Value source,
                                   mlir::Value result);

/// Records the known values of `result` (static dims `outDims`) whose
/// element at each coordinate is the element of `data` (static dims
/// `inDims`) at the coordinate `source` gives: a Slice's strided window, a
/// Transpose's permutation. Nothing when `data`'s values are unknown.
void gatherKnownValues(
    ShapeContext &context, mlir::Value data, llvm::ArrayRef<int64_t> inDims,
    mlir::Value result, llvm::ArrayRef<int64_t> outDims,
    llvm::function_ref<void(llvm::ArrayRef<int64_t> coordinate,
                            llvm::SmallVectorImpl<int64_t> &sourceCoordinate)>
        source);

/// Unifies the shapes of two values dim by dim (they must have equal rank).
mlir::LogicalResult unifyShapes(ShapeContext &context, mlir::Operation *op,
                                mlir::Value a, mlir::Value b,
                                llvm::StringRef what);

/// The values of a small constant float or integer tensor as doubles: an
/// onnx.Constant, or Identity, Cast or Concat (axis 0) of such (the forms
/// exporters give Resize's scales); std::nullopt if not constant.
std::optional<llvm::SmallVector<double>> getConstantNumbers(mlir::Value value);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_OPS_OPHELPERS_H
