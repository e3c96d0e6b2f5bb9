//===- Gather.cpp - onnx.Gather -------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult GatherOp::verify() {
  std::optional<int64_t> rank = getRank(getData());
  if (rank && *rank < 1)
    return emitNodeError(*this) << "data must have rank >= 1";
  if (rank && !normalizeAxis(int64_t(getAxis()), *rank))
    return emitNodeError(*this)
           << "axis " << int64_t(getAxis()) << " is outside [" << -*rank << ", "
           << *rank - 1 << "]";
  return success();
}

LogicalResult GatherOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  Shape indices = context.getShape(getIndices());
  int64_t axis = *normalizeAxis(int64_t(getAxis()), data.size());
  Shape result(data.begin(), data.begin() + axis);
  result.append(indices.begin(), indices.end());
  result.append(data.begin() + axis + 1, data.end());
  context.setShape(getOutput(), result,
                   ShapeContext::getElementType(getData()));

  // Indices known when compiling must lie in the axis (the lowering would
  // clamp them: a wrong result instead of an error).
  std::optional<SmallVector<int64_t>> positions =
      context.getStaticValues(getIndices());
  SmallVector<int64_t> dataDims = context.toStaticDims(data);
  if (positions && !ShapedType::isDynamic(dataDims[axis]))
    for (int64_t position : *positions)
      if (position < -dataDims[axis] || position >= dataDims[axis])
        return emitNodeError(*this)
               << "index " << position << " is out of range for axis " << axis
               << " of size " << dataDims[axis];

  // Values: static indices into known data (Gather(Shape(x), i)).
  std::optional<Values> input = context.getPartialValues(getData());
  if (!input || !positions || llvm::any_of(dataDims, ShapedType::isDynamic))
    return success();
  int64_t outer = 1, inner = 1, size = dataDims[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= dataDims[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(dataDims.size()); ++d)
    inner *= dataDims[d];
  if (outer * positions->size() * inner > ShapeContext::kMaxValues)
    return success();
  Values values;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t position : *positions) {
      if (position < 0)
        position += size;
      for (int64_t i = 0; i < inner; ++i)
        values.push_back((*input)[(o * size + position) * inner + i]);
    }
  context.setValues(getOutput(), values);
  return success();
}

} // namespace odt::onnx
