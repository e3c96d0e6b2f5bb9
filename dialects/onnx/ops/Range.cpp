//===- Range.cpp - onnx.Range ---------------------------------------------===//
//
// max(ceil((limit - start) / delta), 0) elements: static when the three
// scalars are known at compile time, a fresh symbol otherwise.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

namespace odt::onnx {

LogicalResult RangeOp::verify() {
  for (Value operand : {getStart(), getLimit(), getDelta()}) {
    if (failed(verifySameElementType(*this, getStart(), operand,
                                     "start, limit and delta")))
      return failure();
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (type && type.hasStaticShape() && type.getNumElements() != 1)
      return emitNodeError(*this) << "start, limit and delta must be scalars";
  }
  return success();
}

/// The single value of a constant scalar, as a double.
static std::optional<double> getScalar(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  Type type = attr.getElementType();
  if (isa<FloatType>(type))
    return (*attr.getValues<APFloat>().begin()).convertToDouble();
  return static_cast<double>((*attr.getValues<APInt>().begin()).getSExtValue());
}

LogicalResult RangeOp::inferShapes(ShapeContext &context) {
  Type elementType = ShapeContext::getElementType(getStart());
  std::optional<Dim> length;
  std::optional<int64_t> start, delta;
  if (isa<IntegerType>(elementType)) {
    auto scalar = [&](Value v) -> std::optional<int64_t> {
      std::optional<SmallVector<int64_t>> values = context.getStaticValues(v);
      if (!values || values->size() != 1)
        return std::nullopt;
      return values->front();
    };
    start = scalar(getStart());
    std::optional<int64_t> limit = scalar(getLimit());
    delta = scalar(getDelta());
    if (delta && *delta == 0)
      return emitNodeError(*this) << "delta cannot be 0";
    if (start && limit && delta) {
      // ceil((limit - start) / delta) in 128 bits: no overflow.
      __int128 span = (__int128)*limit - *start;
      __int128 d = *delta;
      __int128 count = span / d + ((span % d != 0 && (span < 0) == (d < 0)) ? 1 : 0);
      length = Dim::size(count > 0 ? static_cast<int64_t>(count) : 0);
    }
  } else {
    std::optional<double> s = getScalar(getStart()), l = getScalar(getLimit()),
                          d = getScalar(getDelta());
    if (d && *d == 0)
      return emitNodeError(*this) << "delta cannot be 0";
    if (s && l && d) {
      double count = std::ceil((*l - *s) / *d);
      if (!std::isfinite(count) || count > 9.0e15)
        return emitNodeError(*this) << "the range has too many elements";
      length = Dim::size(count > 0 ? static_cast<int64_t>(count) : 0);
    }
  }
  Dim dim = length ? *length : context.newResultSymbol(*this, 0);
  context.setShape(getOutput(), {dim}, elementType);
  if (length && start && delta && length->getSize() <= ShapeContext::kMaxValues) {
    SmallVector<Dim> values;
    for (int64_t i = 0; i < length->getSize(); ++i)
      values.push_back(Dim::size(*start + i * *delta));
    context.setValues(getOutput(), values);
  }
  return success();
}

} // namespace odt::onnx
