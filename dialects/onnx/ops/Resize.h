//===- Resize.h - onnx.Resize's output sizes and scales ---------*- C++ -*-===//
//
// ONNX Resize's arithmetic, shared by its shape inference and by
// odt-decompose-composite-ops, which builds the interpolation matrices.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_DIALECTS_ONNX_OPS_RESIZE_H
#define ODT_DIALECTS_ONNX_OPS_RESIZE_H

#include "dialects/onnx/ops/OpHelpers.h"

#include <vector>

namespace odt::onnx {

/// One dim of a Resize: whether it changes, its scale (as ONNX's coordinate
/// transformations use it) and, when it changes, its static sizes.
struct ResizeDim {
  bool resized = false;
  double scale = 1.0;
  int64_t inputSize = -1, outputSize = -1;
};

/// The dims of `op` for input dims `inputSizes` (-1: not static). Fails,
/// with an error naming the node, when scales/sizes are not constants, a
/// resized dim is not static, or a value is out of range.
mlir::FailureOr<llvm::SmallVector<ResizeDim>>
getResizeDims(ResizeOp op, llvm::ArrayRef<int64_t> inputSizes);

/// The interpolation matrix of one resized dim, row-major [outputSize,
/// inputSize]: output[o] = sum_i matrix[o][i] * input[i], from the op's
/// mode, coordinate transformation, nearest mode, cubic coefficient and
/// exclude_outside (ONNX's reference semantics).
std::vector<double> getResizeMatrix(ResizeOp op, const ResizeDim &dim);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_OPS_RESIZE_H
