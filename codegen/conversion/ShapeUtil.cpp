//===- ShapeUtil.cpp - helpers of the shape-family lowerings --------------===//

#include "codegen/conversion/ShapeUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::codegen {

bool isSmallIntTensor(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.hasStaticShape() &&
         isa<IntegerType>(ranked.getElementType()) &&
         ranked.getNumElements() <= kSmallTensorLimit;
}

Value toValue(OpBuilder &b, Location loc, OpFoldResult value) {
  return getValueOrCreateConstantIndexOp(b, loc, value);
}

OpFoldResult toFoldResult(Value value) { return getAsOpFoldResult(value); }

Value addIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::AddIOp>(loc, lhs, rhs);
}

Value subIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::SubIOp>(loc, lhs, rhs);
}

Value mulIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::MulIOp>(loc, lhs, rhs);
}

Value divIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::DivSIOp>(loc, lhs, rhs);
}

Value ceilDivIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::CeilDivSIOp>(loc, lhs, rhs);
}

Value minIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::MinSIOp>(loc, lhs, rhs);
}

Value maxIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::MaxSIOp>(loc, lhs, rhs);
}

Value clampIndex(OpBuilder &b, Location loc, Value value, Value low,
                 Value high) {
  return minIndex(b, loc, maxIndex(b, loc, value, low), high);
}

Value cmpIndex(OpBuilder &b, Location loc, arith::CmpIPredicate pred,
               Value lhs, Value rhs) {
  return b.createOrFold<arith::CmpIOp>(loc, pred, lhs, rhs);
}

Value selectValue(OpBuilder &b, Location loc, Value cond, Value whenTrue,
                  Value whenFalse) {
  return b.createOrFold<arith::SelectOp>(loc, cond, whenTrue, whenFalse);
}

Value castFromIndex(OpBuilder &b, Location loc, Value index, Type type) {
  if (type.isIndex())
    return index;
  auto integer = cast<IntegerType>(type);
  Type signless = b.getIntegerType(integer.getWidth());
  Value result = b.createOrFold<arith::IndexCastOp>(loc, signless, index);
  if (!integer.isSignless())
    result = arith::BitcastOp::create(b, loc, type, result);
  return result;
}

Value extractFlat(OpBuilder &b, Location loc, Value tensor, int64_t index) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> coordinates(type.getRank());
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    coordinates[d] = indexConstant(b, loc, size ? index % size : 0);
    if (size)
      index /= size;
  }
  return b.createOrFold<tensor::ExtractOp>(loc, tensor, coordinates);
}

Value extractScalarIndex(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(), indexConstant(b, loc, 0));
  return castToIndex(b, loc,
                     b.createOrFold<tensor::ExtractOp>(loc, tensor, zeros));
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  DenseIntElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> result;
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  for (const APInt &element : attr.getValues<APInt>())
    result.push_back(isUnsigned ? static_cast<int64_t>(element.getZExtValue())
                                : element.getSExtValue());
  return result;
}

Value elementCount(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value count = indexConstant(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    count = mulIndex(b, loc, count, dimValue(b, loc, tensor, d));
  return count;
}

SmallVector<OpFoldResult> mixedSizes(RankedTensorType type,
                                     function_ref<Value(int64_t)> dynamic) {
  Builder builder(type.getContext());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d))
      sizes.push_back(toFoldResult(dynamic(d)));
    else
      sizes.push_back(builder.getIndexAttr(type.getDimSize(d)));
  }
  return sizes;
}

Value reshapeTensor(OpBuilder &b, Location loc, Value source,
                    RankedTensorType type, ArrayRef<OpFoldResult> sizes) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (sourceType == type && type.hasStaticShape())
    return source;
  Type elementType = sourceType.getElementType();
  // To 1-D (or a 0-D source to [1]).
  Value flat = source;
  int64_t count = ShapedType::kDynamic;
  if (sourceType.hasStaticShape())
    count = sourceType.getNumElements();
  else if (type.hasStaticShape())
    count = type.getNumElements();
  auto flatType = RankedTensorType::get({count}, elementType);
  if (sourceType.getRank() == 0) {
    flat = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, elementType), source,
        ArrayRef<ReassociationIndices>{});
    flat = castTensor(b, loc, flat, flatType);
  } else if (sourceType.getRank() == 1) {
    flat = castTensor(b, loc, source, flatType);
  } else {
    ReassociationIndices all;
    for (int64_t d = 0; d < sourceType.getRank(); ++d)
      all.push_back(d);
    auto collapsedType = RankedTensorType::get(
        {sourceType.hasStaticShape() ? count : ShapedType::kDynamic},
        elementType);
    flat = tensor::CollapseShapeOp::create(b, loc, collapsedType, source,
                                           ArrayRef<ReassociationIndices>{all});
    flat = castTensor(b, loc, flat, flatType);
  }
  // From 1-D to the result.
  if (type.getRank() == 0) {
    Value unit = castTensor(b, loc, flat,
                            RankedTensorType::get({1}, elementType));
    return tensor::CollapseShapeOp::create(b, loc, type, unit,
                                           ArrayRef<ReassociationIndices>{});
  }
  if (type.getRank() == 1)
    return castTensor(b, loc, flat, type);
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all},
                                       sizes);
}

Value buildFromElements(OpBuilder &b, Location loc, RankedTensorType type,
                        function_ref<Value(int64_t, ArrayRef<int64_t>)> element) {
  SmallVector<Value> elements;
  SmallVector<int64_t> coordinates(type.getRank(), 0);
  for (int64_t index = 0; index < type.getNumElements(); ++index) {
    int64_t rest = index;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      coordinates[d] = rest % type.getDimSize(d);
      rest /= type.getDimSize(d);
    }
    elements.push_back(element(index, coordinates));
  }
  return b.createOrFold<tensor::FromElementsOp>(loc, type, elements);
}

Value wrapIndex(OpBuilder &b, Location loc, Value index, Value size) {
  Value zero = indexConstant(b, loc, 0);
  Value negative = cmpIndex(b, loc, arith::CmpIPredicate::slt, index, zero);
  Value wrapped =
      selectValue(b, loc, negative, addIndex(b, loc, index, size), index);
  Value last = subIndex(b, loc, size, indexConstant(b, loc, 1));
  return clampIndex(b, loc, wrapped, zero, last);
}

SmallVector<ReassociationIndices> unitDimGroups(ArrayRef<bool> unit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0; d < static_cast<int64_t>(unit.size()); ++d) {
    pending.push_back(d);
    if (!unit[d]) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

} // namespace odt::codegen
