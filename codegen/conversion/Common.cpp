//===- Common.cpp - shared helpers of the onnx -> linalg lowerings --------===//

#include "codegen/conversion/Common.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;

namespace odt::codegen {

SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value castTensor(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return indexConstant(b, loc, type.getDimSize(d));
  return tensor::DimOp::create(b, loc, tensor, d);
}

Value castToIndex(OpBuilder &b, Location loc, Value scalar) {
  Type type = scalar.getType();
  if (type.isIndex())
    return scalar;
  if (auto integer = dyn_cast<IntegerType>(type); integer && !integer.isSignless())
    scalar = arith::BitcastOp::create(
        b, loc, b.getIntegerType(integer.getWidth()), scalar);
  return b.createOrFold<arith::IndexCastOp>(loc, b.getIndexType(), scalar);
}

Value extractIndex(OpBuilder &b, Location loc, Value tensor, int64_t index) {
  Value position = indexConstant(b, loc, index);
  Value element =
      b.createOrFold<tensor::ExtractOp>(loc, tensor, ValueRange{position});
  return castToIndex(b, loc, element);
}

Value convertScalar(OpBuilder &b, Location loc, Value scalar, Type to) {
  Type from = scalar.getType();
  if (from == to)
    return scalar;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, scalar);
    return arith::TruncFOp::create(b, loc, to, scalar);
  }
  if (toFloat && from.isSignlessInteger())
    return arith::SIToFPOp::create(b, loc, to, scalar);
  if (fromFloat && to.isSignlessInteger())
    return arith::FPToSIOp::create(b, loc, to, scalar);
  if (from.isSignlessInteger() && to.isSignlessInteger()) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtSIOp::create(b, loc, to, scalar);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return arith::TruncIOp::create(b, loc, to, scalar);
  }
  return scalar;
}

Value createEmpty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value createScalar(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value createFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Type elementType, double value) {
  Value empty = createEmpty(b, loc, sizes, elementType);
  Value scalar = createScalar(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  return tensor::ExtractOp::create(b, loc, tensor, indices);
}

AffineMap identityMap(MLIRContext *context, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, context);
}

SmallVector<utils::IteratorType> parallelIterators(unsigned count) {
  return SmallVector<utils::IteratorType>(count, utils::IteratorType::parallel);
}

std::pair<Value, AffineMap> broadcastOperand(OpBuilder &b, Location loc,
                                             Value operand,
                                             ArrayRef<int64_t> outputShape) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t rank = type.getRank();
  int64_t outRank = outputShape.size();
  MLIRContext *context = b.getContext();
  // Kept dims map to their aligned output dim; unit dims that broadcast are
  // collapsed into the group of the next kept dim (or the last one).
  SmallVector<AffineExpr> exprs;
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> collapsedShape;
  ReassociationIndices pendingUnits;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t outDim = outRank - rank + i;
    if (type.getDimSize(i) == 1 && outputShape[outDim] != 1) {
      pendingUnits.push_back(i);
      continue;
    }
    ReassociationIndices group = pendingUnits;
    group.push_back(i);
    pendingUnits.clear();
    groups.push_back(group);
    exprs.push_back(getAffineDimExpr(outDim, context));
    collapsedShape.push_back(type.getDimSize(i));
  }
  AffineMap map = AffineMap::get(outRank, 0, exprs, context);
  if (groups.size() == static_cast<size_t>(rank))
    return {operand, map};
  if (!groups.empty())
    groups.back().append(pendingUnits.begin(), pendingUnits.end());
  auto collapsedType =
      RankedTensorType::get(collapsedShape, type.getElementType());
  Value collapsed =
      tensor::CollapseShapeOp::create(b, loc, collapsedType, operand, groups);
  return {collapsed, map};
}

ValueRange buildElementwise(
    OpBuilder &b, Location loc, ValueRange inputs, ValueRange outputs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  auto outType = cast<RankedTensorType>(outputs.front().getType());
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto [value, map] = broadcastOperand(b, loc, input, outType.getShape());
    operands.push_back(value);
    maps.push_back(map);
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    maps.push_back(identityMap(b.getContext(), outType.getRank()));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(outputs), operands, outputs, maps,
      parallelIterators(outType.getRank()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return generic.getResults();
}

} // namespace odt::codegen
