//===- Resize.cpp - onnx.Resize -------------------------------------------===//
//
// Sizes and scales follow the ONNX specification (opsets 13-19): with
// `scales`, output = floor(input * scale) and the coordinate
// transformation uses the given scale; with `sizes`, the scale is
// output / input (keep_aspect_ratio_policy not_larger/not_smaller first
// picks one scale for all `axes` and rounds output = input * scale).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/Resize.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace odt::onnx {

LogicalResult ResizeOp::verify() {
  StringRef mode = getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitNodeError(*this) << "mode must be nearest, linear or cubic, "
                                   "not '"
                                << mode << "'";
  StringRef transform = getCoordinateTransformationMode();
  if (transform != "half_pixel" && transform != "half_pixel_symmetric" &&
      transform != "pytorch_half_pixel" && transform != "align_corners" &&
      transform != "asymmetric" && transform != "tf_half_pixel_for_nn" &&
      transform != "tf_crop_and_resize")
    return emitNodeError(*this)
           << "unknown coordinate_transformation_mode '" << transform << "'";
  if (transform == "tf_crop_and_resize")
    return emitNodeError(*this)
           << "coordinate_transformation_mode tf_crop_and_resize is not "
              "supported (its region of interest and extrapolation are not a "
              "fixed linear map of the input)";
  StringRef nearest = getNearestMode();
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" &&
      nearest != "floor" && nearest != "ceil")
    return emitNodeError(*this) << "unknown nearest_mode '" << nearest << "'";
  StringRef policy = getKeepAspectRatioPolicy();
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return emitNodeError(*this)
           << "unknown keep_aspect_ratio_policy '" << policy << "'";
  if (getAntialias() != 0 && mode == "nearest")
    return emitNodeError(*this) << "antialias applies to linear and cubic "
                                   "modes only";
  // Opset 11-12 models pass an empty scales tensor next to sizes.
  auto isGiven = [](Value value) {
    if (isa<NoneType>(value.getType()))
      return false;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return !type || !type.hasStaticShape() || type.getNumElements() != 0;
  };
  bool hasScales = isGiven(getScales());
  bool hasSizes = isGiven(getSizes());
  if (hasScales == hasSizes)
    return emitNodeError(*this) << "exactly one of scales and sizes must be "
                                   "given";
  return success();
}

FailureOr<SmallVector<ResizeDim>> getResizeDims(ResizeOp op,
                                                ArrayRef<int64_t> inputSizes) {
  int64_t rank = inputSizes.size();
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> given = op.getAxes()) {
    std::optional<SmallVector<int64_t>> normalized =
        normalizeAxes(*given, rank);
    if (!normalized)
      return emitNodeError(op) << "axes must be distinct and within [" << -rank
                               << ", " << rank - 1 << "]";
    // The scales/sizes follow the order of `axes` as given.
    for (int64_t a : *given)
      axes.push_back(a < 0 ? a + rank : a);
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  // An empty scales input (opset 11-13 exports pass "" or an empty
  // constant together with sizes) counts as absent.
  auto scalesType = dyn_cast<RankedTensorType>(op.getScales().getType());
  bool hasScales = !isa<NoneType>(op.getScales().getType()) &&
                   !(scalesType && scalesType.hasStaticShape() &&
                     scalesType.getNumElements() == 0);
  std::optional<SmallVector<double>> values =
      getConstantNumbers(hasScales ? op.getScales() : op.getSizes());
  if (!values)
    return emitNodeError(op) << (hasScales ? "scales" : "sizes")
                             << " must be a constant (the output shape "
                                "depends on it)";
  if (values->size() != axes.size())
    return emitNodeError(op)
           << (hasScales ? "scales" : "sizes") << " has " << values->size()
           << " values for " << axes.size() << " axes";
  SmallVector<ResizeDim> dims(rank);
  StringRef policy = op.getKeepAspectRatioPolicy();
  if (!hasScales && policy != "stretch") {
    // One scale for all axes: the smallest (not_larger) or the largest
    // (not_smaller) of sizes / input.
    double scale = policy == "not_larger" ? INFINITY : 0.0;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (inputSizes[axis] < 0)
        return emitNodeError(op)
               << "dim " << axis << " is resized: its size must be static";
      double s = (*values)[i] / static_cast<double>(inputSizes[axis]);
      scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    }
    for (int64_t axis : axes) {
      int64_t out = static_cast<int64_t>(
          std::nearbyint(scale * static_cast<double>(inputSizes[axis])));
      dims[axis] = {out != inputSizes[axis] || scale != 1.0, scale,
                    inputSizes[axis], out};
    }
    return dims;
  }
  for (auto [i, axis] : llvm::enumerate(axes)) {
    double value = (*values)[i];
    if (hasScales) {
      if (!(value > 0))
        return emitNodeError(op) << "scales must be positive, got " << value;
      if (value == 1.0)
        continue;
    } else if (value < 1 || value != std::floor(value)) {
      return emitNodeError(op)
             << "sizes must be positive integers, got " << value;
    }
    if (inputSizes[axis] < 0) {
      return emitNodeError(op)
             << "dim " << axis << " is resized: its size must be static";
    }
    int64_t in = inputSizes[axis];
    int64_t out = hasScales ? static_cast<int64_t>(std::floor(in * value))
                            : static_cast<int64_t>(value);
    if (out < 1)
      return emitNodeError(op) << "dim " << axis << " of size " << in
                               << " would be resized to " << out;
    double scale = hasScales ? value : static_cast<double>(out) / in;
    if (!hasScales && out == in)
      continue;
    dims[axis] = {true, scale, in, out};
  }
  return dims;
}

LogicalResult ResizeOp::inferShapes(ShapeContext &context) {
  Shape shape = context.getShape(getX());
  SmallVector<int64_t> sizes;
  for (const Dim &dim : shape)
    sizes.push_back(context.resolve(dim).getSize());
  FailureOr<SmallVector<ResizeDim>> dims = getResizeDims(*this, sizes);
  if (failed(dims))
    return failure();
  Shape result = shape;
  for (auto [i, dim] : llvm::enumerate(*dims))
    if (dim.resized)
      result[i] = Dim::size(dim.outputSize);
  context.setShape(getY(), result, ShapeContext::getElementType(getX()));
  return success();
}

namespace {

/// The input coordinate of output position `o` (ONNX's
/// coordinate_transformation_mode). As in ONNX's reference, the output
/// length these formulas divide by is `scale * in`, not the rounded size:
/// with `scales` they differ (align_corners downsampling by 0.6 maps over
/// 2.4 outputs, not 2).
double originalCoordinate(StringRef transform, double o, double scale,
                          int64_t in, int64_t out) {
  double length = scale * static_cast<double>(in);
  if (transform == "half_pixel")
    return (o + 0.5) / scale - 0.5;
  if (transform == "half_pixel_symmetric") {
    double adjustment = static_cast<double>(out) / length;
    double center = in / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (o + 0.5) / scale - 0.5;
  }
  if (transform == "pytorch_half_pixel")
    return length > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  if (transform == "align_corners")
    return length == 1 ? 0.0 : o * static_cast<double>(in - 1) / (length - 1);
  if (transform == "tf_half_pixel_for_nn")
    return (o + 0.5) / scale;
  // asymmetric
  return o / scale;
}

/// Cubic convolution kernel with coefficient a (Keys).
double cubicWeight(double x, double a) {
  x = std::fabs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

} // namespace

std::vector<double> getResizeMatrix(ResizeOp op, const ResizeDim &dim) {
  int64_t in = dim.inputSize, out = dim.outputSize;
  std::vector<double> matrix(static_cast<size_t>(in * out), 0.0);
  StringRef mode = op.getMode();
  StringRef transform = op.getCoordinateTransformationMode();
  StringRef nearest = op.getNearestMode();
  bool antialias = op.getAntialias() != 0 && dim.scale < 1.0;
  double cubicA = op.getCubicCoeffA().convertToDouble();
  bool excludeOutside = op.getExcludeOutside() != 0;
  for (int64_t o = 0; o < out; ++o) {
    double x = originalCoordinate(transform, static_cast<double>(o), dim.scale,
                                  in, out);
    double *row = matrix.data() + o * in;
    if (mode == "nearest") {
      double index;
      if (nearest == "floor")
        index = std::floor(x);
      else if (nearest == "ceil")
        index = std::ceil(x);
      else if (nearest == "round_prefer_ceil")
        index = std::floor(x + 0.5);
      else // round_prefer_floor: halves go down
        index = x == std::floor(x) + 0.5 ? std::floor(x) : std::round(x);
      int64_t i = std::clamp<int64_t>(static_cast<int64_t>(index), 0, in - 1);
      row[i] = 1.0;
      continue;
    }
    // linear and cubic: a filter centred on x; antialiasing (downscaling)
    // stretches it by 1 / scale.
    double support = mode == "linear" ? 1.0 : 2.0;
    double stretch = antialias ? 1.0 / dim.scale : 1.0;
    if (mode == "linear" && !antialias) {
      // Clamp the coordinate as ONNX's reference does for linear.
      x = std::clamp(x, 0.0, static_cast<double>(in - 1));
    }
    int64_t first = static_cast<int64_t>(std::floor(x - support * stretch)) + 1;
    int64_t last = static_cast<int64_t>(std::floor(x + support * stretch));
    if (mode == "linear" && !antialias) {
      first = static_cast<int64_t>(std::floor(x));
      last = first + 1;
    }
    double total = 0.0;
    std::vector<std::pair<int64_t, double>> taps;
    for (int64_t i = first; i <= last; ++i) {
      double distance = (static_cast<double>(i) - x) / stretch;
      double weight = mode == "linear"
                          ? std::max(0.0, 1.0 - std::fabs(distance))
                          : cubicWeight(distance, cubicA);
      bool outside = i < 0 || i >= in;
      if (outside && excludeOutside)
        continue;
      taps.push_back({std::clamp<int64_t>(i, 0, in - 1), weight});
      total += weight;
    }
    // Renormalize when taps were excluded or stretched (ONNX does for
    // exclude_outside and antialias); plain linear and cubic sum to 1.
    bool renormalize = excludeOutside || antialias;
    for (auto [i, weight] : taps)
      row[i] += renormalize && total != 0.0 ? weight / total : weight;
  }
  return matrix;
}

} // namespace odt::onnx
