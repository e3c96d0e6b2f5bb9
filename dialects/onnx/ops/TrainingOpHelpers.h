//===- TrainingOpHelpers.h - shared checks of the training ops --*- C++ -*-===//
//
// Pieces shared by the verifiers and shape functions of the com.microsoft
// training operators (ops/Training.td): axis normalization, elementwise
// gradient shapes, and the compile-time reading of small int64 tensors that
// hold shapes or axes (onnx.Constant, onnx.Shape of a ranked value,
// BroadcastGradientArgs and ConcatTraining results).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_DIALECTS_ONNX_OPS_TRAININGOPHELPERS_H
#define ODT_DIALECTS_ONNX_OPS_TRAININGOPHELPERS_H

#include "dialects/onnx/ops/OpHelpers.h"

namespace odt::onnx {

/// `axis` in [-rank, rank) made non-negative; a node-located error otherwise.
mlir::FailureOr<int64_t> normalizeAxis(mlir::Operation *op, int64_t axis,
                                       int64_t rank, llvm::StringRef what);

/// Verifier of a gradient op computed elementwise from two same-typed
/// tensors (dY and X or Y).
mlir::LogicalResult verifyElementwiseGrad(mlir::Operation *op, mlir::Value dY,
                                          mlir::Value other,
                                          llvm::StringRef what);

/// Shape function of such an op: the operands have one shape, the result has
/// it too (with the element type of `dY`).
mlir::LogicalResult inferElementwiseGrad(ShapeContext &context,
                                         mlir::Operation *op, mlir::Value dY,
                                         mlir::Value other, mlir::Value result,
                                         llvm::StringRef what);

/// The dims a 1-D integer shape tensor holds, when known at compile time:
/// an integer onnx.Constant (static dims) or onnx.Shape of a ranked value
/// (that value's symbolic dims, sliced by start/end).
std::optional<Shape> getShapeOperandDims(ShapeContext &context,
                                         mlir::Value shape);

/// Checks a 1-D shape tensor of static length; returns the length (-1 if
/// its type is unranked).
mlir::FailureOr<int64_t> verifyShapeOperand(mlir::Operation *op,
                                            mlir::Value shape);

/// The shape a 1-D shape tensor describes: its known dims, else fresh
/// symbols (the values are read at run time).
Shape shapeOperandResultDims(ShapeContext &context, mlir::Operation *op,
                             mlir::Value shape);

/// The static integers a small int tensor holds at compile time: an integer
/// onnx.Constant, onnx.Shape of static dims, or an
/// onnx.ms.BroadcastGradientArgs result whose inputs are known.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getStaticIntegers(mlir::Value value);

/// The static dims a 1-D shape tensor holds without a ShapeContext (from
/// the types), -1 for a dynamic dim: a constant or onnx.Shape of a ranked
/// value.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getShapeOperandStaticDims(mlir::Value shape);

/// ORT's BroadcastGradientArgs over two shapes (-1: dynamic, assumed not 1
/// and equal to any other dim but 1). Returns the axes of a and of b, last
/// to first; fails if two static sizes other than 1 differ.
mlir::LogicalResult
computeBroadcastGradientArgs(llvm::ArrayRef<int64_t> a,
                             llvm::ArrayRef<int64_t> b,
                             llvm::SmallVectorImpl<int64_t> &aAxes,
                             llvm::SmallVectorImpl<int64_t> &bAxes);

/// The element type a TensorProto data type names (FLOAT, DOUBLE, FLOAT16,
/// BFLOAT16), or null.
mlir::Type getFloatTypeFromONNX(mlir::MLIRContext *context, int64_t dataType);

/// A fresh symbol for each dim of a result nothing names.
Dim freshDim(ShapeContext &context, mlir::Operation *op, llvm::StringRef what,
             unsigned index);

} // namespace odt::onnx


namespace odt::onnx {

/// The window of a ConvGrad or pooling gradient, one entry per spatial axis.
struct GradWindow {
  llvm::SmallVector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;
  bool ceilMode = false;
  int64_t effectiveKernel(unsigned axis) const {
    return (kernel[axis] - 1) * dilations[axis] + 1;
  }
};

/// Reads strides, dilations, pads and auto_pad (NOTSET, VALID, SAME_UPPER,
/// SAME_LOWER; SAME needs `inputSpatial`, the input's spatial sizes, -1 for
/// dynamic) of `op` for a kernel of spatial dims `kernel`.
mlir::FailureOr<GradWindow> readGradWindow(mlir::Operation *op,
                                           llvm::ArrayRef<int64_t> kernel,
                                           llvm::ArrayRef<int64_t> inputSpatial);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_OPS_TRAININGOPHELPERS_H
