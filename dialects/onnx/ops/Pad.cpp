//===- Pad.cpp - onnx.Pad -------------------------------------------------===//
//
// pads lists the begin pads of the padded axes, then their end pads
// (negative: crop). Without axes (opset 18) every axis is padded.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult PadOp::verify() {
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitNodeError(*this)
           << "mode must be constant, reflect, edge or wrap, got '" << mode
           << "'";
  if (failed(verifyRank(*this, getPads(), 1, "pads")))
    return failure();
  if (!isNoValue(getConstantValue())) {
    if (failed(verifySameElementType(*this, getData(), getConstantValue(),
                                     "data and constant_value")))
      return failure();
    auto type = dyn_cast<RankedTensorType>(getConstantValue().getType());
    if (type && type.hasStaticShape() && type.getNumElements() != 1)
      return emitNodeError(*this) << "constant_value must be a scalar";
  }
  std::optional<int64_t> rank = getRank(getData());
  int64_t padded = rank.value_or(-1);
  if (!isNoValue(getAxes())) {
    if (failed(verifyRank(*this, getAxes(), 1, "axes")))
      return failure();
    DenseIntElementsAttr axes;
    padded = -1;
    if (matchPattern(getAxes(), m_Constant(&axes))) {
      padded = axes.getNumElements();
      SmallVector<int64_t> values;
      for (const APInt &axis : axes.getValues<APInt>())
        values.push_back(axis.getSExtValue());
      if (rank && !normalizeAxes(values, *rank))
        return emitNodeError(*this) << "axes must be unique and in ["
                                    << -*rank << ", " << *rank - 1 << "]";
    }
  }
  auto padsType = dyn_cast<RankedTensorType>(getPads().getType());
  if (padded >= 0 && padsType && !padsType.isDynamicDim(0) &&
      padsType.getDimSize(0) != 2 * padded)
    return emitNodeError(*this) << "pads must have " << 2 * padded
                                << " entries (begin and end of each padded "
                                   "axis), got "
                                << padsType.getDimSize(0);
  return success();
}

LogicalResult PadOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  int64_t rank = data.size();
  SmallVector<int64_t> axes;
  if (isNoValue(getAxes())) {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  } else {
    std::optional<SmallVector<int64_t>> values =
        context.getStaticValues(getAxes());
    if (!values)
      return emitNodeError(*this) << "axes must be known at compile time";
    for (int64_t axis : *values)
      axes.push_back(*normalizeAxis(axis, rank));
  }
  int64_t count = axes.size();
  if (failed(context.unify(context.getShape(getPads())[0],
                           Dim::size(2 * count), *this,
                           "pads must have two entries per padded axis")))
    return failure();
  Values pads = context.getPartialValues(getPads())
                    .value_or(Values(2 * count, std::nullopt));
  Shape result = data;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    std::optional<Dim> begin = pads[i], end = pads[count + i];
    std::optional<Dim> size;
    if (begin && end && begin->isStatic() && end->isStatic()) {
      int64_t extra = begin->getSize() + end->getSize();
      size = context.add(data[axis], Dim::size(extra));
      if (data[axis].isStatic() && data[axis].getSize() + extra < 0)
        return emitNodeError(*this)
               << "pads crop dim " << axis << " of size "
               << data[axis].getSize() << " below 0";
    }
    result[axis] = size ? *size : context.newResultSymbol(*this, axis);
  }
  context.setShape(getOutput(), result,
                   ShapeContext::getElementType(getData()));
  return success();
}

} // namespace odt::onnx
