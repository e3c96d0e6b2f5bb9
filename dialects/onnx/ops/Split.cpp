//===- Split.cpp - onnx.Split ---------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult SplitOp::verify() {
  int64_t parts = getNumResults();
  if (parts < 1)
    return emitNodeError(*this) << "needs at least one output";
  std::optional<int64_t> rank = getRank(getInput());
  if (rank && !normalizeAxis(int64_t(getAxis()), *rank))
    return emitNodeError(*this) << "axis " << int64_t(getAxis()) << " is outside ["
                                << -*rank << ", " << *rank - 1 << "]";
  if (auto numOutputs = getNumOutputs()) {
    if (!isNoValue(getSplit()))
      return emitNodeError(*this)
             << "split and num_outputs cannot both be given";
    if (static_cast<int64_t>(*numOutputs) != parts)
      return emitNodeError(*this) << "num_outputs is " << *numOutputs
                                  << " but the node has " << parts
                                  << " outputs";
  }
  if (isNoValue(getSplit()))
    return success();
  if (failed(verifyRank(*this, getSplit(), 1, "split")))
    return failure();
  DenseIntElementsAttr split;
  if (matchPattern(getSplit(), m_Constant(&split))) {
    if (split.getNumElements() != parts)
      return emitNodeError(*this) << "split has " << split.getNumElements()
                                  << " entries for " << parts << " outputs";
    for (const APInt &size : split.getValues<APInt>())
      if (size.isNegative())
        return emitNodeError(*this) << "split sizes must be >= 0";
  }
  return success();
}

LogicalResult SplitOp::inferShapes(ShapeContext &context) {
  Shape input = context.getShape(getInput());
  int64_t axis = *normalizeAxis(int64_t(getAxis()), input.size());
  int64_t parts = getNumResults();
  Dim dim = input[axis];
  SmallVector<Dim> sizes;
  auto fresh = [&]() {
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(context.newResultSymbol(*this, axis, i));
  };
  if (!isNoValue(getSplit())) {
    Values split = context.getPartialValues(getSplit())
                       .value_or(Values(parts, std::nullopt));
    if (static_cast<int64_t>(split.size()) != parts)
      return emitNodeError(*this) << "split has " << split.size()
                                  << " entries for " << parts << " outputs";
    for (int64_t i = 0; i < parts; ++i) {
      if (split[i] && split[i]->getCoefficient() < 0)
        return emitNodeError(*this) << "split sizes must be >= 0";
      sizes.push_back(split[i] ? *split[i]
                               : context.newResultSymbol(*this, axis, i));
    }
    std::optional<Dim> sum = Dim::size(0);
    for (const Dim &size : sizes)
      if (sum)
        sum = context.add(*sum, size);
    if (sum && failed(context.unify(dim, *sum, *this,
                                    "split sizes do not add up to the dim")))
      return failure();
  } else if (getNumOutputs()) {
    // Opset 18: parts of ceil(dim / n), the last one what is left.
    if (dim.isStatic()) {
      int64_t chunk = (dim.getSize() + parts - 1) / parts;
      int64_t last = dim.getSize() - chunk * (parts - 1);
      if (last < 0)
        return emitNodeError(*this) << "cannot split a dim of size "
                                    << dim.getSize() << " into " << parts
                                    << " parts";
      sizes.assign(parts - 1, Dim::size(chunk));
      sizes.push_back(Dim::size(last));
    } else if (std::optional<Dim> part =
                   context.divideExact(dim, Dim::size(parts))) {
      sizes.assign(parts, *part);
    } else {
      fresh();
    }
  } else {
    if (dim.isStatic() && dim.getSize() % parts != 0)
      return emitNodeError(*this) << "cannot split a dim of size "
                                  << dim.getSize() << " into " << parts
                                  << " equal parts";
    if (std::optional<Dim> part = context.divideExact(dim, Dim::size(parts)))
      sizes.assign(parts, *part);
    else
      fresh();
  }
  Type elementType = ShapeContext::getElementType(getInput());
  for (int64_t i = 0; i < parts; ++i) {
    Shape shape = input;
    shape[axis] = sizes[i];
    context.setShape(getOutputs()[i], shape, elementType);
  }
  return success();
}

} // namespace odt::onnx
