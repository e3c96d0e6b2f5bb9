//===- NNUtil.cpp - helpers of the NN family's lowerings ------------------===//

#include "codegen/conversion/NNUtil.h"
#include "codegen/conversion/ElementwiseUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace odt::codegen {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

IndexValue IndexValue::dim(OpBuilder &b, Location loc, Value tensor,
                           int64_t dim) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return constant(b, loc, type.getDimSize(dim));
  return IndexValue(b, loc,
                    tensor::DimOp::create(b, loc, tensor, dim).getResult());
}

std::optional<int64_t> IndexValue::getConstant() const {
  return getConstantIntValue(value);
}

Value IndexValue::materialize() const {
  if (std::optional<int64_t> c = getConstant())
    return arith::ConstantIndexOp::create(*b, loc, *c);
  return cast<Value>(value);
}

namespace {

IndexValue fold(const IndexValue &a, int64_t value) {
  return IndexValue::constant(a.getBuilder(), a.getLoc(), value);
}

IndexValue wrap(const IndexValue &a, Value value) {
  return IndexValue(a.getBuilder(), a.getLoc(), value);
}

} // namespace

IndexValue operator+(const IndexValue &a, const IndexValue &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (ca && cb)
    return fold(a, *ca + *cb);
  if (ca == 0)
    return b;
  if (cb == 0)
    return a;
  return wrap(a, arith::AddIOp::create(a.getBuilder(), a.getLoc(),
                                       a.materialize(), b.materialize()));
}

IndexValue operator+(const IndexValue &a, int64_t b) { return a + fold(a, b); }

IndexValue operator-(const IndexValue &a, const IndexValue &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (ca && cb)
    return fold(a, *ca - *cb);
  if (cb == 0)
    return a;
  return wrap(a, arith::SubIOp::create(a.getBuilder(), a.getLoc(),
                                       a.materialize(), b.materialize()));
}

IndexValue operator-(const IndexValue &a, int64_t b) { return a - fold(a, b); }

IndexValue operator*(const IndexValue &a, const IndexValue &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (ca && cb)
    return fold(a, *ca * *cb);
  if (ca == 0 || cb == 0)
    return fold(a, 0);
  if (ca == 1)
    return b;
  if (cb == 1)
    return a;
  return wrap(a, arith::MulIOp::create(a.getBuilder(), a.getLoc(),
                                       a.materialize(), b.materialize()));
}

IndexValue operator*(const IndexValue &a, int64_t b) { return a * fold(a, b); }

// arith.floordivsi/ceildivsi need arith-expand before LLVM; these build the
// expansion directly: q = a / b (toward zero), corrected by the remainder.
IndexValue floorDiv(const IndexValue &a, int64_t b) {
  if (std::optional<int64_t> c = a.getConstant())
    return fold(a, onnx::floorDiv(*c, b));
  if (b == 1)
    return a;
  OpBuilder &builder = a.getBuilder();
  Location loc = a.getLoc();
  Value divisor = arith::ConstantIndexOp::create(builder, loc, b);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value x = a.materialize();
  Value q = arith::DivSIOp::create(builder, loc, x, divisor);
  Value r = arith::RemSIOp::create(builder, loc, x, divisor);
  Value negative =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, r, zero);
  Value adjust = arith::SelectOp::create(builder, loc, negative, one, zero);
  return wrap(a, arith::SubIOp::create(builder, loc, q, adjust));
}

IndexValue ceilDiv(const IndexValue &a, int64_t b) {
  if (std::optional<int64_t> c = a.getConstant())
    return fold(a, onnx::ceilDiv(*c, b));
  if (b == 1)
    return a;
  OpBuilder &builder = a.getBuilder();
  Location loc = a.getLoc();
  Value divisor = arith::ConstantIndexOp::create(builder, loc, b);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value x = a.materialize();
  Value q = arith::DivSIOp::create(builder, loc, x, divisor);
  Value r = arith::RemSIOp::create(builder, loc, x, divisor);
  Value positive =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt, r, zero);
  Value adjust = arith::SelectOp::create(builder, loc, positive, one, zero);
  return wrap(a, arith::AddIOp::create(builder, loc, q, adjust));
}

IndexValue maxOf(const IndexValue &a, const IndexValue &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (ca && cb)
    return fold(a, std::max(*ca, *cb));
  return wrap(a, arith::MaxSIOp::create(a.getBuilder(), a.getLoc(),
                                        a.materialize(), b.materialize()));
}

IndexValue maxOf(const IndexValue &a, int64_t b) {
  return maxOf(a, fold(a, b));
}

IndexValue minOf(const IndexValue &a, const IndexValue &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (ca && cb)
    return fold(a, std::min(*ca, *cb));
  return wrap(a, arith::MinSIOp::create(a.getBuilder(), a.getLoc(),
                                        a.materialize(), b.materialize()));
}

IndexValue minOf(const IndexValue &a, int64_t b) {
  return minOf(a, fold(a, b));
}

IndexValue constantLike(const IndexValue &like, int64_t value) {
  return fold(like, value);
}

SmallVector<IndexValue> getIndexSizes(OpBuilder &b, Location loc,
                                      Value tensor) {
  SmallVector<IndexValue> sizes;
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(IndexValue::dim(b, loc, tensor, d));
  return sizes;
}

SmallVector<OpFoldResult> toFoldResults(ArrayRef<IndexValue> values) {
  return llvm::map_to_vector(values,
                             [](const IndexValue &v) { return v.get(); });
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

Type getComputeType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  if (auto integer = dyn_cast<IntegerType>(elementType);
      integer && !integer.isSignless())
    return IntegerType::get(elementType.getContext(), integer.getWidth());
  return elementType;
}

Value convertTensor(OpBuilder &b, Location loc, Value tensor, Type to) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type from = type.getElementType();
  if (from == to)
    return tensor;
  auto resultType = type.clone(to);
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return tensor::BitcastOp::create(b, loc, resultType, tensor);
  Value empty = createEmpty(b, loc, getSizes(b, loc, tensor), to);
  return buildElementwise(b, loc, {tensor}, {empty},
                          [&](OpBuilder &nb, Location l, ValueRange args) {
                            return SmallVector<Value>{
                                convertScalar(nb, l, args[0], to)};
                          })
      .front();
}

//===----------------------------------------------------------------------===//
// Padding and inits
//===----------------------------------------------------------------------===//

Value padTensor(OpBuilder &b, Location loc, Value tensor,
                ArrayRef<OpFoldResult> low, ArrayRef<OpFoldResult> high,
                Value padValue) {
  auto isZero = [](OpFoldResult v) { return isConstantIntValue(v, 0); };
  if (llvm::all_of(low, isZero) && llvm::all_of(high, isZero))
    return tensor;
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> shape;
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    std::optional<int64_t> l = getConstantIntValue(low[index]);
    std::optional<int64_t> h = getConstantIntValue(high[index]);
    shape.push_back(ShapedType::isDynamic(size) || !l || !h
                        ? ShapedType::kDynamic
                        : size + *l + *h);
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(b, loc, resultType, tensor, low, high, padValue);
}

Value createBiasInit(OpBuilder &b, Location loc, Value bias,
                     ArrayRef<OpFoldResult> sizes, Type elementType) {
  if (!bias)
    return createFilled(b, loc, sizes, elementType, 0.0);
  Value empty = createEmpty(b, loc, sizes, elementType);
  int64_t rank = sizes.size();
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, getAffineDimExpr(1, context), context),
      identityMap(context, rank)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{bias},
             ValueRange{empty}, maps, parallelIterators(rank),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, convertScalar(nb, l, args[0], elementType));
             })
      .getResult(0);
}

Value createLowest(OpBuilder &b, Location loc, Type type, bool isUnsigned) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                  /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt lowest =
      isUnsigned ? APInt::getZero(width) : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, lowest));
}

//===----------------------------------------------------------------------===//
// Convolution and pooling kernels
//===----------------------------------------------------------------------===//

namespace {

/// `value` with dim `dim` split into [parts, size / parts].
Value splitDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               int64_t parts) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<IndexValue> sizes = getIndexSizes(b, loc, value);
  SmallVector<OpFoldResult> outSizes;
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t next = shape.size();
    if (d == dim) {
      IndexValue part = floorDiv(sizes[d], parts);
      outSizes.push_back(b.getIndexAttr(parts));
      outSizes.push_back(part.get());
      shape.push_back(parts);
      std::optional<int64_t> c = part.getConstant();
      shape.push_back(c ? *c : ShapedType::kDynamic);
      groups.push_back({next, next + 1});
      continue;
    }
    outSizes.push_back(sizes[d].get());
    shape.push_back(type.getDimSize(d));
    groups.push_back({next});
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, value, groups,
                                       outSizes);
}

/// `value` with dims `dim` and `dim + 1` merged.
Value mergeDims(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == dim + 1)
      continue;
    if (d == dim) {
      groups.push_back({d, d + 1});
      int64_t a = type.getDimSize(d), c = type.getDimSize(d + 1);
      shape.push_back(ShapedType::isDynamic(a) || ShapedType::isDynamic(c)
                          ? ShapedType::kDynamic
                          : a * c);
      continue;
    }
    groups.push_back({d});
    shape.push_back(type.getDimSize(d));
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::CollapseShapeOp::create(b, loc, resultType, value, groups);
}

/// Multiply-accumulate in the accumulator's type.
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value w, Value acc) {
  Type type = acc.getType();
  x = convertScalar(b, loc, x, type);
  w = convertScalar(b, loc, w, type);
  if (isa<FloatType>(type))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, w));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, w));
}

/// The expression o * stride + k * dilation of a windowed input access.
AffineExpr windowExpr(MLIRContext *context, unsigned outDim, unsigned kDim,
                      int64_t stride, int64_t dilation) {
  return getAffineDimExpr(outDim, context) * stride +
         getAffineDimExpr(kDim, context) * dilation;
}

Value buildGenericConvolution(OpBuilder &b, Location loc, Value input,
                              Value filter, Value init,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations, int64_t group) {
  MLIRContext *context = b.getContext();
  unsigned rank = strides.size();
  // [N, G, C/G, L...], [G, M/G, C/G, k...], [N, G, M/G, o...].
  Value groupedInput = splitDim(b, loc, input, 1, group);
  Value groupedFilter = splitDim(b, loc, filter, 0, group);
  Value groupedInit = splitDim(b, loc, init, 1, group);
  // Loops: n, g, m, o1..on (parallel), c, k1..kn (reduction).
  unsigned numLoops = 4 + 2 * rank;
  unsigned cDim = 3 + rank;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineExpr> inputExprs = {d(0), d(1), d(cDim)};
  SmallVector<AffineExpr> filterExprs = {d(1), d(2), d(cDim)};
  SmallVector<AffineExpr> outputExprs = {d(0), d(1), d(2)};
  for (unsigned i = 0; i < rank; ++i) {
    inputExprs.push_back(
        windowExpr(context, 3 + i, cDim + 1 + i, strides[i], dilations[i]));
    filterExprs.push_back(d(cDim + 1 + i));
    outputExprs.push_back(d(3 + i));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(numLoops, 0, inputExprs, context),
      AffineMap::get(numLoops, 0, filterExprs, context),
      AffineMap::get(numLoops, 0, outputExprs, context)};
  SmallVector<utils::IteratorType> iterators(3 + rank,
                                             utils::IteratorType::parallel);
  iterators.append(1 + rank, utils::IteratorType::reduction);
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{groupedInit.getType()},
          ValueRange{groupedInput, groupedFilter}, ValueRange{groupedInit},
          maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l, multiplyAdd(nb, l, args[0], args[1], args[2]));
          })
          .getResult(0);
  return castTensor(b, loc, mergeDims(b, loc, result, 1), init.getType());
}

} // namespace

Value buildConvolution(OpBuilder &b, Location loc, Value input, Value filter,
                       Value init, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations, int64_t group) {
  unsigned rank = strides.size();
  Attribute stridesAttr = b.getI64TensorAttr(strides);
  Attribute dilationsAttr = b.getI64TensorAttr(dilations);
  SmallVector<Type> resultTypes = {init.getType()};
  SmallVector<Value> outs = {init};
  if (group == 1) {
    SmallVector<Value> ins = {input, filter};
    switch (rank) {
    case 1:
      return linalg::Conv1DNcwFcwOp::create(b, loc, resultTypes, ins, outs,
                                            stridesAttr, dilationsAttr)
          .getResult(0);
    case 2:
      return linalg::Conv2DNchwFchwOp::create(b, loc, resultTypes, ins, outs,
                                              stridesAttr, dilationsAttr)
          .getResult(0);
    case 3:
      return linalg::Conv3DNcdhwFcdhwOp::create(b, loc, resultTypes, ins, outs,
                                                stridesAttr, dilationsAttr)
          .getResult(0);
    default:
      break;
    }
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  bool depthwise = group > 1 && inputType.getDimSize(1) == group &&
                   filterType.getDimSize(0) == group &&
                   filterType.getDimSize(1) == 1;
  if (depthwise && rank <= 3) {
    // Filter [C, 1, k...] -> [C, k...].
    SmallVector<ReassociationIndices> groups = {{0, 1}};
    for (unsigned i = 0; i < rank; ++i)
      groups.push_back({2 + i});
    Value flat = tensor::CollapseShapeOp::create(b, loc, filter, groups);
    SmallVector<Value> ins = {input, flat};
    switch (rank) {
    case 1:
      return linalg::DepthwiseConv1DNcwCwOp::create(
                 b, loc, resultTypes, ins, outs, stridesAttr, dilationsAttr)
          .getResult(0);
    case 2:
      return linalg::DepthwiseConv2DNchwChwOp::create(
                 b, loc, resultTypes, ins, outs, stridesAttr, dilationsAttr)
          .getResult(0);
    default:
      return linalg::DepthwiseConv3DNcdhwCdhwOp::create(
                 b, loc, resultTypes, ins, outs, stridesAttr, dilationsAttr)
          .getResult(0);
    }
  }
  if (rank == 2) {
    Value groupedInput = splitDim(b, loc, input, 1, group);
    Value groupedFilter = splitDim(b, loc, filter, 0, group);
    Value groupedInit = splitDim(b, loc, init, 1, group);
    Value result = linalg::Conv2DNgchwGfchwOp::create(
                       b, loc, TypeRange{groupedInit.getType()},
                       ValueRange{groupedInput, groupedFilter},
                       ValueRange{groupedInit}, stridesAttr, dilationsAttr)
                       .getResult(0);
    return castTensor(b, loc, mergeDims(b, loc, result, 1), init.getType());
  }
  return buildGenericConvolution(b, loc, input, filter, init, strides,
                                 dilations, group);
}

Value buildPooling(OpBuilder &b, Location loc, PoolKind kind, Value input,
                   Value init, ArrayRef<int64_t> kernel,
                   ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  unsigned rank = kernel.size();
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<Type> resultTypes = {init.getType()};
  if ((rank == 1 || rank == 2) && kind != PoolKind::MaxUnsigned) {
    Value window =
        createEmpty(b, loc, getAsIndexOpFoldResult(b.getContext(), kernel),
                    inputType.getElementType());
    SmallVector<Value> ins = {input, window};
    SmallVector<Value> outs = {init};
    Attribute stridesAttr = b.getI64TensorAttr(strides);
    Attribute dilationsAttr = b.getI64TensorAttr(dilations);
    if (rank == 1 && kind == PoolKind::Max)
      return linalg::PoolingNcwMaxOp::create(b, loc, resultTypes, ins, outs,
                                             stridesAttr, dilationsAttr)
          .getResult(0);
    if (rank == 1)
      return linalg::PoolingNcwSumOp::create(b, loc, resultTypes, ins, outs,
                                             stridesAttr, dilationsAttr)
          .getResult(0);
    if (kind == PoolKind::Max)
      return linalg::PoolingNchwMaxOp::create(b, loc, resultTypes, ins, outs,
                                              stridesAttr, dilationsAttr)
          .getResult(0);
    return linalg::PoolingNchwSumOp::create(b, loc, resultTypes, ins, outs,
                                            stridesAttr, dilationsAttr)
        .getResult(0);
  }
  // Loops: n, c, o1..on (parallel), k1..kn (reduction).
  MLIRContext *context = b.getContext();
  unsigned numLoops = 2 + 2 * rank;
  SmallVector<AffineExpr> inputExprs = {getAffineDimExpr(0, context),
                                        getAffineDimExpr(1, context)};
  for (unsigned i = 0; i < rank; ++i)
    inputExprs.push_back(
        windowExpr(context, 2 + i, 2 + rank + i, strides[i], dilations[i]));
  // An empty tensor of the window's shape read by k1..kn gives linalg the
  // reduction loops' bounds (the input map alone is not invertible); the
  // output map keeps the leading n, c, o dims.
  Value window = createEmpty(b, loc, getAsIndexOpFoldResult(context, kernel),
                             inputType.getElementType());
  SmallVector<AffineMap> maps = {
      AffineMap::get(numLoops, 0, inputExprs, context),
      AffineMap::getMultiDimIdentityMap(numLoops, context).getMinorSubMap(rank),
      AffineMap::getMultiDimIdentityMap(numLoops, context)
          .getMajorSubMap(2 + rank)};
  SmallVector<utils::IteratorType> iterators(2 + rank,
                                             utils::IteratorType::parallel);
  iterators.append(rank, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, resultTypes, ValueRange{input, window}, ValueRange{init},
             maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value acc = args[2];
               Value x = convertScalar(nb, l, args[0], acc.getType());
               Value result;
               if (kind == PoolKind::Sum)
                 result = isa<FloatType>(acc.getType())
                              ? Value(arith::AddFOp::create(nb, l, acc, x))
                              : Value(arith::AddIOp::create(nb, l, acc, x));
               else if (isa<FloatType>(acc.getType()))
                 result = arith::MaximumFOp::create(nb, l, acc, x);
               else if (kind == PoolKind::MaxUnsigned)
                 result = arith::MaxUIOp::create(nb, l, acc, x);
               else
                 result = arith::MaxSIOp::create(nb, l, acc, x);
               linalg::YieldOp::create(nb, l, result);
             })
      .getResult(0);
}

} // namespace odt::codegen
