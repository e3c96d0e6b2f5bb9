//===- Slice.cpp - onnx.Slice ---------------------------------------------===//
//
// Bounds are clamped as ONNX says: negative starts/ends count from the end;
// with a positive step both are clamped to [0, dim], with a negative step the
// start to [0, dim - 1] and the end to [-1, dim - 1].
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

/// Clamped start and element count of a slice of a dim of static size `dim`.
static std::pair<int64_t, int64_t> sliceRange(int64_t dim, int64_t start,
                                              int64_t end, int64_t step) {
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return {start, start > end ? (start - end - step - 1) / -step : 0};
}

LogicalResult SliceOp::verify() {
  SmallVector<Value> params = {getStarts(), getEnds()};
  if (!isNoValue(getAxes()))
    params.push_back(getAxes());
  if (!isNoValue(getSteps()))
    params.push_back(getSteps());
  std::optional<int64_t> length;
  for (Value param : params) {
    if (failed(verifyRank(*this, param, 1, "starts, ends, axes and steps")))
      return failure();
    auto type = dyn_cast<RankedTensorType>(param.getType());
    if (!type || type.isDynamicDim(0))
      continue;
    if (length && *length != type.getDimSize(0))
      return emitNodeError(*this)
             << "starts, ends, axes and steps must have the same length";
    length = type.getDimSize(0);
  }
  DenseIntElementsAttr steps;
  if (!isNoValue(getSteps()) && matchPattern(getSteps(), m_Constant(&steps)))
    for (const APInt &step : steps.getValues<APInt>())
      if (step.isZero())
        return emitNodeError(*this) << "steps cannot be 0";
  DenseIntElementsAttr axes;
  std::optional<int64_t> rank = getRank(getData());
  if (rank && !isNoValue(getAxes()) && matchPattern(getAxes(), m_Constant(&axes))) {
    SmallVector<int64_t> values;
    for (const APInt &axis : axes.getValues<APInt>())
      values.push_back(axis.getSExtValue());
    if (!normalizeAxes(values, *rank))
      return emitNodeError(*this) << "axes must be unique and in [" << -*rank
                                  << ", " << *rank - 1 << "]";
  }
  return success();
}

LogicalResult SliceOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  int64_t rank = data.size();
  Dim lengthDim = context.getShape(getStarts())[0];
  Shape result = data;
  Type elementType = ShapeContext::getElementType(getData());
  auto allFresh = [&]() {
    for (int64_t d = 0; d < rank; ++d)
      result[d] = context.newResultSymbol(*this, d);
    context.setShape(getOutput(), result, elementType);
    return success();
  };
  if (!lengthDim.isStatic())
    return allFresh();
  int64_t length = lengthDim.getSize();
  SmallVector<int64_t> axes;
  if (isNoValue(getAxes())) {
    for (int64_t i = 0; i < length; ++i)
      axes.push_back(i);
    if (length > rank)
      return emitNodeError(*this) << "starts has " << length
                                  << " entries, data has rank " << rank;
  } else {
    std::optional<SmallVector<int64_t>> values =
        context.getStaticValues(getAxes());
    if (!values)
      return allFresh();
    for (int64_t axis : *values) {
      std::optional<int64_t> normalized = normalizeAxis(axis, rank);
      if (!normalized || llvm::is_contained(axes, *normalized))
        return emitNodeError(*this) << "axes must be unique and in ["
                                    << -rank << ", " << rank - 1 << "]";
      axes.push_back(*normalized);
    }
  }
  Values none(length, std::nullopt);
  Values starts = context.getPartialValues(getStarts()).value_or(none);
  Values ends = context.getPartialValues(getEnds()).value_or(none);
  Values steps = isNoValue(getSteps())
                     ? Values(length, Dim::size(1))
                     : context.getPartialValues(getSteps()).value_or(none);
  // Static ranges, for the values below.
  SmallVector<int64_t> first(rank, 0), stride(rank, 1);
  bool staticRanges = true;
  constexpr int64_t kHuge = std::numeric_limits<int32_t>::max();
  for (auto [i, axis] : llvm::enumerate(axes)) {
    Dim dim = data[axis];
    std::optional<Dim> start = starts[i], end = ends[i], step = steps[i];
    bool known = start && end && step && start->isStatic() &&
                 end->isStatic() && step->isStatic();
    if (known && step->getSize() == 0)
      return emitNodeError(*this) << "steps cannot be 0";
    if (known && dim.isStatic()) {
      auto [begin, count] = sliceRange(dim.getSize(), start->getSize(),
                                       end->getSize(), step->getSize());
      result[axis] = Dim::size(count);
      first[axis] = begin;
      stride[axis] = step->getSize();
      continue;
    }
    staticRanges = false;
    // The whole of a symbolic dim: [0, huge or dim) forward, [-1, -huge)
    // backward.
    bool whole = false;
    if (start && step && start->isStatic() && step->isStatic() && end) {
      if (step->getSize() == 1 && start->getSize() == 0)
        whole = (end->isStatic() && end->getSize() >= kHuge) ||
                context.resolve(*end) == dim;
      else if (step->getSize() == -1 && start->getSize() == -1)
        whole = end->isStatic() && end->getSize() <= -kHuge;
    }
    result[axis] = whole ? dim : context.newResultSymbol(*this, axis);
  }
  context.setShape(getOutput(), result, elementType);

  // Values of a small static slice of known data.
  if (!staticRanges)
    return success();
  gatherKnownValues(context, getData(), context.toStaticDims(data), getOutput(),
                    context.toStaticDims(result),
                    [&](ArrayRef<int64_t> at, SmallVectorImpl<int64_t> &from) {
                      for (int64_t d = 0; d < rank; ++d)
                        from.push_back(first[d] + at[d] * stride[d]);
                    });
  return success();
}

} // namespace odt::onnx
