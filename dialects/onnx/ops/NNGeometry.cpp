//===- NNGeometry.cpp - windows of convolutions and pools -----------------===//

#include "dialects/onnx/ops/NNGeometry.h"
#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

namespace {

/// An INTS attribute of `op` as a vector, or std::nullopt when absent.
std::optional<SmallVector<int64_t>> getInts(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr.asArrayRef());
}

std::string formatList(ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [index, value] : llvm::enumerate(values))
    text += (index ? ", " : "") + std::to_string(value);
  return text + "]";
}

} // namespace

FailureOr<SmallVector<int64_t>>
readKernelShape(Operation *op, int64_t spatialRank,
                std::optional<ArrayRef<int64_t>> weightSpatial) {
  if (spatialRank < 1)
    return emitNodeError(op) << "X must have rank >= 3 (N, C and at least one "
                                "spatial dim), got rank "
                             << spatialRank + 2;
  std::optional<SmallVector<int64_t>> kernel = getInts(op, "kernel_shape");
  if (kernel) {
    if (static_cast<int64_t>(kernel->size()) != spatialRank)
      return emitNodeError(op) << "kernel_shape must have " << spatialRank
                               << " values (one per spatial dim), got "
                               << kernel->size();
    for (int64_t k : *kernel)
      if (k < 1)
        return emitNodeError(op) << "kernel_shape values must be positive, got "
                                 << formatList(*kernel);
    if (weightSpatial)
      for (auto [k, w] : llvm::zip_equal(*kernel, *weightSpatial))
        if (!ShapedType::isDynamic(w) && w != k)
          return emitNodeError(op)
                 << "kernel_shape " << formatList(*kernel)
                 << " differs from the spatial dims of W "
                 << formatList(*weightSpatial);
    return *kernel;
  }
  if (!weightSpatial)
    return emitNodeError(op) << "kernel_shape is required";
  for (int64_t w : *weightSpatial)
    if (ShapedType::isDynamic(w))
      return emitNodeError(op)
             << "the spatial dims of W must be static (or kernel_shape given)";
  return SmallVector<int64_t>(*weightSpatial);
}

FailureOr<WindowAttrs> readWindowAttrs(Operation *op, ArrayRef<int64_t> kernel) {
  size_t rank = kernel.size();
  WindowAttrs attrs;
  attrs.kernel.assign(kernel.begin(), kernel.end());

  if (auto autoPad = op->getAttrOfType<StringAttr>("auto_pad")) {
    StringRef mode = autoPad.getValue();
    if (mode == "NOTSET")
      attrs.autoPad = AutoPad::NotSet;
    else if (mode == "SAME_UPPER")
      attrs.autoPad = AutoPad::SameUpper;
    else if (mode == "SAME_LOWER")
      attrs.autoPad = AutoPad::SameLower;
    else if (mode == "VALID")
      attrs.autoPad = AutoPad::Valid;
    else
      return emitNodeError(op) << "auto_pad must be NOTSET, SAME_UPPER, "
                                  "SAME_LOWER or VALID, got '"
                               << mode << "'";
  }
  if (auto ceilMode = op->getAttrOfType<IntegerAttr>("ceil_mode")) {
    int64_t value = ceilMode.getInt();
    if (value != 0 && value != 1)
      return emitNodeError(op) << "ceil_mode must be 0 or 1, got " << value;
    attrs.ceilMode = value;
  }

  // Per-axis lists: their length and the smallest value allowed.
  auto readList = [&](StringRef name, size_t length, int64_t minValue,
                      int64_t defaultValue,
                      SmallVector<int64_t> &into) -> LogicalResult {
    std::optional<SmallVector<int64_t>> values = getInts(op, name);
    if (!values) {
      into.assign(length, defaultValue);
      return success();
    }
    if (values->size() != length)
      return emitNodeError(op) << name << " must have " << length
                               << " values for " << rank
                               << " spatial dims, got " << values->size();
    for (int64_t value : *values)
      if (value < minValue)
        return emitNodeError(op)
               << name << " values must be "
               << (minValue > 0 ? "positive" : "non-negative") << ", got "
               << formatList(*values);
    into = *values;
    return success();
  };
  SmallVector<int64_t> pads;
  if (failed(readList("strides", rank, 1, 1, attrs.strides)) ||
      failed(readList("dilations", rank, 1, 1, attrs.dilations)) ||
      failed(readList("pads", 2 * rank, 0, 0, pads)) ||
      failed(readList("output_padding", rank, 0, 0, attrs.outputPadding)))
    return failure();
  // Explicit pads apply under NOTSET only (ONNX Runtime ignores them
  // otherwise).
  if (attrs.autoPad != AutoPad::NotSet)
    pads.assign(2 * rank, 0);
  attrs.padsBegin.assign(pads.begin(), pads.begin() + rank);
  attrs.padsEnd.assign(pads.begin() + rank, pads.end());

  if (std::optional<SmallVector<int64_t>> shape = getInts(op, "output_shape")) {
    // Spatial dims, or (as some exporters write it) N, C and spatial dims.
    if (shape->size() != rank && shape->size() != rank + 2)
      return emitNodeError(op) << "output_shape must have " << rank
                               << " values (one per spatial dim), got "
                               << shape->size();
    attrs.outputShape.assign(shape->end() - rank, shape->end());
    for (int64_t value : attrs.outputShape)
      if (value < 1)
        return emitNodeError(op) << "output_shape values must be positive, got "
                                 << formatList(*shape);
  }
  return attrs;
}

FailureOr<Dim> inferWindowDim(ShapeContext &context, Operation *op,
                              const WindowAttrs &attrs, unsigned axis, Dim in,
                              bool transposed, StringRef name) {
  auto evaluate = [&](int64_t size) {
    return transposed ? transposeWindow<int64_t>(attrs, axis, size).out
                      : forwardWindow<int64_t>(attrs, axis, size).out;
  };
  if (in.isStatic()) {
    int64_t out = evaluate(in.getSize());
    if (out < 1) {
      if (transposed)
        return emitNodeError(op)
               << "output size of spatial dim " << axis << " is " << out
               << " (input " << in.getSize() << ", pads "
               << attrs.padsBegin[axis] << " + " << attrs.padsEnd[axis] << ")";
      return emitNodeError(op)
             << "kernel of spatial dim " << axis << " (extent "
             << attrs.getEffectiveKernel(axis)
             << " with dilation) is larger than the padded input ("
             << in.getSize() + attrs.padsBegin[axis] + attrs.padsEnd[axis]
             << ")";
    }
    return Dim::size(out);
  }
  if (transposed && !attrs.outputShape.empty())
    return Dim::size(attrs.outputShape[axis]);
  // With stride 1 every formula is `in + constant`.
  if (attrs.strides[axis] == 1 && evaluate(1000) == 1000 &&
      evaluate(4097) == 4097)
    return in;
  return context.newSymbol(name);
}

std::optional<ArrayRef<int64_t>> weightSpatialDims(Value weight) {
  if (auto type = dyn_cast<RankedTensorType>(weight.getType()))
    if (type.getRank() >= 2)
      return type.getShape().drop_front(2);
  return std::nullopt;
}

LogicalResult verifyConvolution(Operation *op, Value x, Value w, Value b,
                                int64_t group) {
  if (failed(verifySameElementType(op, x, w, "X and W")))
    return failure();
  if (!isNoValue(b) && (failed(verifySameElementType(op, x, b, "X and B")) ||
                        failed(verifyRank(op, b, 1, "B"))))
    return failure();
  if (group < 1)
    return emitNodeError(op) << "group must be positive, got " << group;
  std::optional<int64_t> rank = getRank(x);
  if (!rank)
    return success();
  if (*rank < 3)
    return emitNodeError(op) << "X must have rank >= 3 (N, C and at least "
                                "one spatial dim), got rank "
                             << *rank;
  if (failed(verifyRank(op, w, *rank, "W (same rank as X)")))
    return failure();
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(op, *rank - 2, weightSpatialDims(w));
  if (failed(kernel) || failed(readWindowAttrs(op, *kernel)))
    return failure();
  return success();
}

LogicalResult verifyPool(Operation *op, Value x) {
  std::optional<int64_t> rank = getRank(x);
  if (!rank)
    return success();
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(op, *rank - 2, std::nullopt);
  if (failed(kernel) || failed(readWindowAttrs(op, *kernel)))
    return failure();
  return success();
}

FailureOr<Shape> inferPoolShape(ShapeContext &context, Operation *op,
                                Value x) {
  Shape xShape = context.getShape(x);
  int64_t spatialRank = xShape.size() - 2;
  FailureOr<SmallVector<int64_t>> kernel =
      readKernelShape(op, spatialRank, std::nullopt);
  if (failed(kernel))
    return failure();
  FailureOr<WindowAttrs> attrs = readWindowAttrs(op, *kernel);
  if (failed(attrs))
    return failure();
  Shape y = {xShape[0], xShape[1]};
  for (int64_t i = 0; i < spatialRank; ++i) {
    FailureOr<Dim> out = inferWindowDim(
        context, op, *attrs, i, xShape[2 + i], /*transposed=*/false,
        (getNodeName(op) + "_Y_dim" + Twine(2 + i)).str());
    if (failed(out))
      return failure();
    y.push_back(*out);
  }
  return y;
}

} // namespace odt::onnx
