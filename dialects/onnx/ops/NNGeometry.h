//===- NNGeometry.h - windows of convolutions and pools ---------*- C++ -*-===//
//
// Conv, ConvTranspose, MaxPool and AveragePool slide a window over the
// spatial dims of an NC<spatial> tensor. Their attributes (auto_pad, pads,
// strides, dilations, ceil_mode, output_padding, output_shape) are read and
// checked once here, and the size formulas are written once, as templates
// over the integer type: shape inference evaluates them on int64_t, the
// lowerings on index values that fold to constants where sizes are static
// (codegen/conversion/NNUtil.h), so the two cannot disagree.
//
// The formulas use `+`, `-`, `*` with int64_t and the functions floorDiv,
// ceilDiv, maxOf, minOf and constantLike below (found by argument-dependent lookup for
// other integer types).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_DIALECTS_ONNX_OPS_NNGEOMETRY_H
#define ODT_DIALECTS_ONNX_OPS_NNGEOMETRY_H

#include "dialects/onnx/ONNXOps.h"

#include "llvm/ADT/SmallVector.h"

namespace odt::onnx {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

/// The attributes of a windowed op, one entry per spatial axis (defaults
/// filled in; pads are zero under auto_pad SAME_* and VALID).
struct WindowAttrs {
  AutoPad autoPad = AutoPad::NotSet;
  bool ceilMode = false;
  llvm::SmallVector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;
  /// ConvTranspose only: output_padding (zeros by default) and output_shape
  /// (spatial dims; empty when absent).
  llvm::SmallVector<int64_t> outputPadding, outputShape;

  unsigned getSpatialRank() const { return kernel.size(); }
  /// The extent of the dilated kernel: (k - 1) * d + 1.
  int64_t getEffectiveKernel(unsigned axis) const {
    return (kernel[axis] - 1) * dilations[axis] + 1;
  }
};

/// Reads and checks the window attributes of `op` (attributes auto_pad,
/// ceil_mode, dilations, pads, strides, output_padding, output_shape by
/// their ONNX names) for `kernel`, the spatial dims of the kernel. Emits a
/// node-located error and fails on a bad attribute.
mlir::FailureOr<WindowAttrs> readWindowAttrs(mlir::Operation *op,
                                             llvm::ArrayRef<int64_t> kernel);

/// Reads the kernel's spatial dims from the kernel_shape attribute (checked
/// against `weightSpatial`, the weight's spatial dims, where given) or from
/// the weight; they must be static. `spatialRank` is the input's rank - 2.
mlir::FailureOr<llvm::SmallVector<int64_t>>
readKernelShape(mlir::Operation *op, int64_t spatialRank,
                std::optional<llvm::ArrayRef<int64_t>> weightSpatial);

/// The spatial dims of a ranked weight [M, C / group, k...] (dynamic ones as
/// kDynamic); none when its rank is unknown or below 2.
std::optional<llvm::ArrayRef<int64_t>> weightSpatialDims(mlir::Value weight);

/// The checks Conv and ConvTranspose share: X, W and the optional B (NoValue
/// when absent) agree in element type, B is 1-D, group is positive, X has
/// rank >= 3 and W the same rank, and the window attributes fit.
mlir::LogicalResult verifyConvolution(mlir::Operation *op, mlir::Value x,
                                      mlir::Value w, mlir::Value b,
                                      int64_t group);

/// The checks MaxPool and AveragePool share: the kernel_shape attribute and
/// the window attributes fit X's spatial rank.
mlir::LogicalResult verifyPool(mlir::Operation *op, mlir::Value x);

/// The output shape of a pool over `x`: [N, C, one window dim per spatial
/// dim] (fresh symbols named after the node where a dim is not static).
mlir::FailureOr<Shape> inferPoolShape(ShapeContext &context, mlir::Operation *op,
                                      mlir::Value x);

// Integer helpers of the formulas (b > 0).
inline int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
inline int64_t ceilDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}
inline int64_t maxOf(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t minOf(int64_t a, int64_t b) { return a < b ? a : b; }
/// The constant `value` in the integer type of `like`.
inline int64_t constantLike(int64_t, int64_t value) { return value; }

/// One spatial axis of a window: the output size and the padding applied
/// to the input before and after (negative for ConvTranspose means the
/// output is cropped there).
template <typename T> struct AxisWindow {
  T out;
  T padBegin;
  T padEnd;
};

/// Conv and pools: the output size of axis `axis` for input size `in`.
///   NOTSET/VALID: (in + pads - effK) / stride + 1, floor or (ceil_mode) ceil;
///     with ceil_mode a last window that would start in the end padding is
///     dropped (ONNX's clarification, as ONNX Runtime does).
///   SAME_UPPER/LOWER: ceil(in / stride), total padding
///     max(0, (out - 1) * stride + effK - in), the odd one at the end (UPPER)
///     or at the beginning (LOWER).
template <typename T>
AxisWindow<T> forwardWindow(const WindowAttrs &attrs, unsigned axis, T in) {
  int64_t stride = attrs.strides[axis];
  int64_t effK = attrs.getEffectiveKernel(axis);
  if (attrs.autoPad == AutoPad::SameUpper ||
      attrs.autoPad == AutoPad::SameLower) {
    T out = ceilDiv(in, stride);
    T total = maxOf((out - 1) * stride + effK - in, 0);
    T half = floorDiv(total, 2);
    T begin = attrs.autoPad == AutoPad::SameUpper ? half : total - half;
    return {out, begin, total - begin};
  }
  int64_t padB = attrs.padsBegin[axis], padE = attrs.padsEnd[axis];
  T span = in + (padB + padE - effK);
  if (!attrs.ceilMode)
    return {floorDiv(span, stride) + 1, constantLike(in, padB), constantLike(in, padE)};
  T out = minOf(ceilDiv(span, stride) + 1, floorDiv(in + (padB - 1), stride) + 1);
  return {out, constantLike(in, padB), constantLike(in, padE)};
}

/// With ceil_mode the last window may reach past the padded input: the
/// padding to add at the end so that every window lies inside it.
template <typename T>
T windowOverhang(const WindowAttrs &attrs, unsigned axis, T in,
                 const AxisWindow<T> &window) {
  return maxOf((window.out - 1) * attrs.strides[axis] +
                   attrs.getEffectiveKernel(axis) -
                   (in + window.padBegin + window.padEnd),
               0);
}

/// ConvTranspose: the output size of axis `axis` for input size `in`.
///   output_shape given (or SAME_*: in * stride): total padding
///     stride * (in - 1) + output_padding + effK - out, split as ONNX says
///     (the odd one at the end for SAME_UPPER, at the beginning otherwise).
///   otherwise: stride * (in - 1) + output_padding + effK - pads.
template <typename T>
AxisWindow<T> transposeWindow(const WindowAttrs &attrs, unsigned axis, T in) {
  int64_t stride = attrs.strides[axis];
  int64_t effK = attrs.getEffectiveKernel(axis);
  int64_t outPad = attrs.outputPadding[axis];
  T full = (in - 1) * stride + (outPad + effK);
  bool same = attrs.autoPad == AutoPad::SameUpper ||
              attrs.autoPad == AutoPad::SameLower;
  if (!attrs.outputShape.empty() || same) {
    T out = attrs.outputShape.empty() ? in * stride
                                      : constantLike(in, attrs.outputShape[axis]);
    T total = full - out;
    T half = floorDiv(total, 2);
    if (attrs.autoPad == AutoPad::SameUpper)
      return {out, half, total - half};
    return {out, total - half, half};
  }
  int64_t padB = attrs.padsBegin[axis], padE = attrs.padsEnd[axis];
  return {full - (padB + padE), constantLike(in, padB), constantLike(in, padE)};
}

/// The symbolic output dim of a window axis: static when the input dim is
/// (failing with a node error when no window fits), the input's own symbol
/// when the window keeps sizes (stride 1 and zero net padding), else a fresh
/// symbol named `name`.
mlir::FailureOr<Dim> inferWindowDim(ShapeContext &context, mlir::Operation *op,
                                    const WindowAttrs &attrs, unsigned axis,
                                    Dim in, bool transposed,
                                    llvm::StringRef name);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_OPS_NNGEOMETRY_H
