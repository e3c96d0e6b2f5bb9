//===- TrainingOpHelpers.cpp - shared checks of the training ops ----------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace odt::onnx {

FailureOr<int64_t> normalizeAxis(Operation *op, int64_t axis, int64_t rank,
                                 StringRef what) {
  if (axis < -rank || axis >= rank)
    return emitNodeError(op) << what << " " << axis << " is out of range for "
                             << "rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult verifyElementwiseGrad(Operation *op, Value dY, Value other,
                                    StringRef what) {
  return verifySameElementType(op, dY, other, what);
}

LogicalResult inferElementwiseGrad(ShapeContext &context, Operation *op,
                                   Value dY, Value other, Value result,
                                   StringRef what) {
  if (failed(unifyShapes(context, op, dY, other,
                         (what + " must have the same shape").str())))
    return failure();
  context.setShape(result, context.getShape(other),
                   ShapeContext::getElementType(dY));
  return success();
}

/// The [start, end) slice of a rank-`rank` shape that onnx.Shape returns.
static std::pair<int64_t, int64_t> shapeSlice(Operation *shapeOp,
                                              int64_t rank) {
  auto clamp = [&](int64_t index) {
    if (index < 0)
      index += rank;
    return std::min(std::max<int64_t>(index, 0), rank);
  };
  int64_t start = 0, end = rank;
  if (auto attr = shapeOp->getAttrOfType<IntegerAttr>("start"))
    start = clamp(attr.getInt());
  if (auto attr = shapeOp->getAttrOfType<IntegerAttr>("end"))
    end = clamp(attr.getInt());
  return {start, std::max(start, end)};
}

/// The onnx.Shape that defines `value`, if any.
static Operation *getShapeOp(Value value) {
  Operation *def = value.getDefiningOp();
  if (def && def->getName().getStringRef() == "onnx.Shape" &&
      def->getNumOperands() == 1)
    return def;
  return nullptr;
}

static std::optional<SmallVector<int64_t>> getConstantIntegers(Value value) {
  DenseIntElementsAttr values;
  if (!matchPattern(value, m_Constant(&values)))
    return std::nullopt;
  SmallVector<int64_t> result;
  for (APInt element : values)
    result.push_back(element.getSExtValue());
  return result;
}

std::optional<Shape> getShapeOperandDims(ShapeContext &context, Value shape) {
  if (std::optional<SmallVector<int64_t>> constant = getConstantIntegers(shape)) {
    Shape dims;
    for (int64_t size : *constant) {
      if (size < 0)
        return std::nullopt;
      dims.push_back(Dim::size(size));
    }
    return dims;
  }
  if (Operation *shapeOp = getShapeOp(shape)) {
    Value source = shapeOp->getOperand(0);
    if (!context.hasShape(source))
      return std::nullopt;
    Shape dims = context.getShape(source);
    auto [start, end] = shapeSlice(shapeOp, dims.size());
    return Shape(dims.begin() + start, dims.begin() + end);
  }
  return std::nullopt;
}

FailureOr<SmallVector<int64_t>> getShapeOperandStaticDims(Value shape) {
  if (std::optional<SmallVector<int64_t>> constant = getConstantIntegers(shape))
    return *constant;
  if (Operation *shapeOp = getShapeOp(shape)) {
    auto type = dyn_cast<RankedTensorType>(shapeOp->getOperand(0).getType());
    if (!type)
      return failure();
    auto [start, end] = shapeSlice(shapeOp, type.getRank());
    SmallVector<int64_t> dims;
    for (int64_t i = start; i < end; ++i)
      dims.push_back(type.isDynamicDim(i) ? -1 : type.getDimSize(i));
    return dims;
  }
  return failure();
}

LogicalResult computeBroadcastGradientArgs(ArrayRef<int64_t> a,
                                           ArrayRef<int64_t> b,
                                           SmallVectorImpl<int64_t> &aAxes,
                                           SmallVectorImpl<int64_t> &bAxes) {
  // ORT's kernel, walking both shapes from the last dim; a dynamic dim is
  // never 1 and equals whatever it faces, except a static 1.
  int64_t i = a.size() - 1, j = b.size() - 1;
  int64_t k = std::max(a.size(), b.size()) - 1;
  for (; i >= 0 && j >= 0; --i, --j, --k) {
    int64_t aDim = a[i], bDim = b[j];
    if (aDim == bDim || (aDim < 0 && bDim != 1) || (bDim < 0 && aDim != 1))
      continue;
    if (aDim == 1)
      aAxes.push_back(k);
    else if (bDim == 1)
      bAxes.push_back(k);
    else
      return failure();
  }
  for (; k >= 0; --k)
    (i < 0 ? aAxes : bAxes).push_back(k);
  return success();
}

FailureOr<SmallVector<int64_t>> getStaticIntegers(Value value) {
  if (std::optional<SmallVector<int64_t>> constant = getConstantIntegers(value))
    return *constant;
  if (getShapeOp(value)) {
    FailureOr<SmallVector<int64_t>> dims = getShapeOperandStaticDims(value);
    if (failed(dims) || llvm::is_contained(*dims, -1))
      return failure();
    return dims;
  }
  if (auto args = value.getDefiningOp<BroadcastGradientArgsOp>())
    return args.getStaticAxes(cast<OpResult>(value).getResultNumber());
  return failure();
}

Type getFloatTypeFromONNX(MLIRContext *context, int64_t dataType) {
  Builder b(context);
  switch (dataType) {
  case 1: return b.getF32Type();
  case 10: return b.getF16Type();
  case 11: return b.getF64Type();
  case 16: return b.getBF16Type();
  default: return nullptr;
  }
}

Dim freshDim(ShapeContext &context, Operation *op, StringRef what,
             unsigned index) {
  return context.newSymbol(
      (getNodeName(op) + "_" + what + "_dim" + Twine(index)).str());
}

} // namespace odt::onnx

namespace odt::onnx {

FailureOr<GradWindow> readGradWindow(Operation *op, ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> inputSpatial) {
  size_t n = kernel.size();
  GradWindow window;
  window.kernel.assign(kernel.begin(), kernel.end());
  auto readList = [&](StringRef name, int64_t fill, size_t size,
                      SmallVectorImpl<int64_t> &out) -> LogicalResult {
    auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name);
    if (!attr) {
      out.assign(size, fill);
      return success();
    }
    if (attr.size() != (int64_t)size)
      return emitNodeError(op) << name << " must have " << size
                               << " values, got " << attr.size();
    out.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
    return success();
  };
  SmallVector<int64_t> pads;
  if (failed(readList("strides", 1, n, window.strides)) ||
      failed(readList("dilations", 1, n, window.dilations)) ||
      failed(readList("pads", 0, 2 * n, pads)))
    return failure();
  for (size_t i = 0; i < n; ++i) {
    if (window.kernel[i] < 1 || window.strides[i] < 1 ||
        window.dilations[i] < 1)
      return emitNodeError(op)
             << "kernel sizes, strides and dilations must be positive";
    if (pads[i] < 0 || pads[n + i] < 0)
      return emitNodeError(op) << "pads must not be negative";
  }
  window.padsBegin.assign(pads.begin(), pads.begin() + n);
  window.padsEnd.assign(pads.begin() + n, pads.end());
  if (auto ceil = op->getAttrOfType<IntegerAttr>("ceil_mode"))
    window.ceilMode = ceil.getInt() != 0;
  StringRef autoPad = "NOTSET";
  if (auto attr = op->getAttrOfType<StringAttr>("auto_pad"))
    autoPad = attr.getValue();
  if (autoPad == "NOTSET")
    return window;
  if (autoPad == "VALID") {
    window.padsBegin.assign(n, 0);
    window.padsEnd.assign(n, 0);
    return window;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return emitNodeError(op) << "unknown auto_pad '" << autoPad << "'";
  for (size_t i = 0; i < n; ++i) {
    if (i >= inputSpatial.size() || inputSpatial[i] < 0)
      return emitNodeError(op) << "auto_pad " << autoPad
                               << " needs static spatial dims";
    int64_t in = inputSpatial[i];
    int64_t out = (in + window.strides[i] - 1) / window.strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * window.strides[i] + window.effectiveKernel(i) - in);
    int64_t small = total / 2, large = total - small;
    window.padsBegin[i] = autoPad == "SAME_UPPER" ? small : large;
    window.padsEnd[i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return window;
}

} // namespace odt::onnx

namespace odt::onnx {

/// The rank a 1-D shape tensor gives (its static length).
FailureOr<int64_t> verifyShapeOperand(Operation *op, Value shape) {
  if (failed(verifyRank(op, shape, 1, "shape")))
    return failure();
  auto type = dyn_cast<RankedTensorType>(shape.getType());
  if (!type)
    return -1;
  if (type.isDynamicDim(0))
    return emitNodeError(op) << "shape must have a static length";
  return type.getDimSize(0);
}

/// The result shape a shape operand describes.
Shape shapeOperandResultDims(ShapeContext &context, Operation *op, Value shape) {
  if (std::optional<Shape> dims = getShapeOperandDims(context, shape))
    return *dims;
  Shape fresh;
  int64_t rank = context.getShape(shape)[0].getSize();
  for (int64_t i = 0; i < rank; ++i)
    fresh.push_back(freshDim(context, op, "dX", i));
  return fresh;
}

} // namespace odt::onnx
