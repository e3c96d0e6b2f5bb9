//===- OneHot.cpp - onnx.OneHot -------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult OneHotOp::verify() {
  std::optional<int64_t> valuesRank = getRank(getValues());
  if (valuesRank && *valuesRank != 1)
    return emitNodeError(*this)
           << "values must be a 1-D tensor [off_value, on_value]";
  return success();
}

LogicalResult OneHotOp::inferShapes(ShapeContext &context) {
  Shape indices = context.getShape(getIndices());
  Shape values = context.getShape(getValues());
  if (failed(context.unify(values[0], Dim::size(2), *this,
                           "values' size and 2 (off_value, on_value)")))
    return failure();
  int64_t rank = indices.size() + 1;
  std::optional<int64_t> axis = normalizeAxis(getAxis(), rank);
  if (!axis)
    return emitNodeError(*this) << "axis " << getAxis() << " is outside ["
                                << -rank << ", " << rank - 1 << "]";
  // depth must be known: it is the size of the new dim.
  Type depthElement = ShapeContext::getElementType(getDepth());
  std::optional<SmallVector<int64_t>> depth;
  if (isa<IntegerType>(depthElement))
    depth = context.getStaticValues(getDepth());
  if (!depth) {
    if (auto constant = getDepth().getDefiningOp<ConstantOp>())
      if (auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
          elements && elements.getNumElements() == 1 &&
          isa<FloatType>(elements.getElementType()))
        depth = SmallVector<int64_t>{static_cast<int64_t>(
            (*elements.getValues<APFloat>().begin()).convertToDouble())};
  }
  if (!depth || depth->size() != 1)
    return emitNodeError(*this)
           << "depth must be a constant with one value (it is the size of "
              "the new dim)";
  if ((*depth)[0] < 1)
    return emitNodeError(*this)
           << "depth must be positive, not " << (*depth)[0];
  Shape result(indices.begin(), indices.end());
  result.insert(result.begin() + *axis, Dim::size((*depth)[0]));
  context.setShape(getOutput(), result,
                   ShapeContext::getElementType(getValues()));
  return success();
}

} // namespace odt::onnx
