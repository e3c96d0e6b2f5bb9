//===- NNUtil.cpp - helpers of the NN family's lowerings ------------------===//

#include "codegen/conversion/NNUtil.h"
#include "codegen/common/MiddleContract.h"
#include "codegen/conversion/ElementwiseUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

Value buildImageColumns(OpBuilder &b, Location loc, Value input,
                        ArrayRef<int64_t> kernel,
                        ArrayRef<OpFoldResult> outSpatial,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ColumnLayout layout) {
  MLIRContext *context = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, input);
  // Loop dims in the order of the (uncollapsed) result.
  enum { N, C, KH, KW, OH, OW };
  SmallVector<int> order = layout == ColumnLayout::ImageMajor
                               ? SmallVector<int>{N, C, KH, KW, OH, OW}
                               : SmallVector<int>{N, OH, OW, C, KH, KW};
  SmallVector<OpFoldResult> extent = {inSizes[0],
                                      inSizes[1],
                                      b.getIndexAttr(kernel[0]),
                                      b.getIndexAttr(kernel[1]),
                                      outSpatial[0],
                                      outSpatial[1]};
  SmallVector<AffineExpr> dim(6);
  SmallVector<OpFoldResult> sizes;
  for (auto [position, which] : llvm::enumerate(order)) {
    dim[which] = getAffineDimExpr(position, context);
    sizes.push_back(extent[which]);
  }
  AffineMap read = AffineMap::get(
      6, 0,
      {dim[N], dim[C], dim[OH] * strides[0] + dim[KH] * dilations[0],
       dim[OW] * strides[1] + dim[KW] * dilations[1]},
      context);
  Value empty = createEmpty(b, loc, sizes, inputType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{input}, ValueRange{empty},
      ArrayRef<AffineMap>{read, AffineMap::getMultiDimIdentityMap(6, context)},
      SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
  SmallVector<ReassociationIndices> groups =
      layout == ColumnLayout::ImageMajor
          ? SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}}
          : SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}};
  return tensor::CollapseShapeOp::create(b, loc, generic.getResult(0), groups);
}

/// init += lhs * rhs over `maps` (lhs, rhs, init) and `iterators`.
static Value buildMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                                     Value rhs, Value init,
                                     ArrayRef<AffineMap> maps,
                                     ArrayRef<utils::IteratorType> iterators) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init}, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
               linalg::YieldOp::create(
                   nb, l,
                   ValueRange{arith::AddFOp::create(nb, l, args[2], product)});
             })
      .getResult(0);
}

bool convolvesAsProduct(Value input, Value filter, Value init, int64_t group) {
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto filterType = dyn_cast<RankedTensorType>(filter.getType());
  auto initType = dyn_cast<RankedTensorType>(init.getType());
  return group == 1 && inputType && filterType && initType &&
         inputType.getRank() == 4 && filterType.hasStaticShape() &&
         inputType.getElementType().isF32() &&
         filterType.getElementType().isF32() &&
         initType.getElementType().isF32();
}

/// Image `n` of an [N, ...] tensor, as [1, ...].
static Value sliceImage(OpBuilder &b, Location loc, Value tensor, Value n) {
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[0] = n;
  sizes[0] = b.getIndexAttr(1);
  return tensor::ExtractSliceOp::create(b, loc, tensor, offsets, sizes,
                                        strides);
}

/// max(x, 0) of an f32 tensor, elementwise (as the Relu lowering computes
/// it).
static Value applyRelu(OpBuilder &b, Location loc, Value x) {
  Type elementType = cast<RankedTensorType>(x.getType()).getElementType();
  Value empty =
      createEmpty(b, loc, tensor::getMixedSizes(b, loc, x), elementType);
  return buildElementwise(
      b, loc, {x}, {empty},
      [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        Value zero = createScalar(nb, l, elementType, 0.0);
        return {createMaximum(nb, l, args[0], zero, /*isUnsigned=*/false)};
      })[0];
}

bool convAbsorbsRelu(onnx::ConvOp conv) {
  Value y = conv.getY();
  auto type = dyn_cast<RankedTensorType>(y.getType());
  return type && type.getElementType().isF32() && y.hasOneUse() &&
         isa<onnx::ReluOp>(*y.getUsers().begin());
}

/// Y[n, f, (oh,ow)] += W[f, (c,kh,kw)] * Col_n[(c,kh,kw), (oh,ow)], one
/// image per parallel iteration: an image's columns ([C*KH*KW, OH*OW], a
/// few hundred KB at most) are written and read while they sit in L2,
/// instead of all images' columns going through memory.
static Value buildConvolutionProduct(OpBuilder &b, Location loc, Value input,
                                     Value filter, Value init,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations, bool relu) {
  MLIRContext *context = b.getContext();
  auto filterType = cast<RankedTensorType>(filter.getType());
  SmallVector<OpFoldResult> initSizes = tensor::getMixedSizes(b, loc, init);
  Value matrix = tensor::CollapseShapeOp::create(
      b, loc, filter, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  auto forall =
      scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{initSizes[0]},
                            ValueRange{init}, std::nullopt);
  forall->setAttr(kCpuDecisionAttr,
                  b.getStringAttr("convolution as an im2col product per "
                                  "image, images in parallel"));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value n = forall.getInductionVar(0);
  Value out = forall.getRegionIterArgs()[0];
  Value image = sliceImage(b, loc, input, n);
  auto outImage =
      sliceImage(b, loc, out, n).getDefiningOp<tensor::ExtractSliceOp>();
  Value columns =
      buildImageColumns(b, loc, image, filterType.getShape().drop_front(2),
                        {initSizes[2], initSizes[3]}, strides, dilations,
                        ColumnLayout::ImageMajor);
  SmallVector<ReassociationIndices> outGroups = {{0}, {1}, {2, 3}};
  Value outMatrix =
      tensor::CollapseShapeOp::create(b, loc, outImage.getResult(), outGroups);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Loops (n, f, p, k) with n of size 1.
  Value product = buildMultiplyAccumulate(
      b, loc, matrix, columns, outMatrix,
      {AffineMap::get(4, 0, {d(1), d(3)}, context),
       AffineMap::get(4, 0, {d(0), d(3), d(2)}, context),
       AffineMap::get(4, 0, {d(0), d(1), d(2)}, context)},
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::parallel, utils::IteratorType::reduction});
  if (relu)
    product = applyRelu(b, loc, product);
  Value result = tensor::ExpandShapeOp::create(
      b, loc, outImage.getType(), product, outGroups, outImage.getMixedSizes());
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, result, out, outImage.getMixedOffsets(), outImage.getMixedSizes(),
      outImage.getMixedStrides());
  return forall.getResult(0);
}

/// Image groups the filter gradient is summed in: a fixed count, so the
/// order of the sums (and the result) does not depend on how many threads
/// run them.
static constexpr int64_t kFilterGradientGroups = 4;

Value buildFilterGradientProduct(OpBuilder &b, Location loc, Value paddedInput,
                                 Value dY, ArrayRef<int64_t> filterShape,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations) {
  MLIRContext *context = b.getContext();
  auto dyType = cast<RankedTensorType>(dY.getType());
  Type f32 = dyType.getElementType();
  SmallVector<OpFoldResult> dySizes = tensor::getMixedSizes(b, loc, dY);
  int64_t filters = filterShape[0];
  int64_t inner = filterShape[1] * filterShape[2] * filterShape[3];
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Per group of images, in parallel: a partial sum summed image by image
  // (each image's columns stay in L2): dW[f, k] += dY_n[f, q] * Col_n[q, k]
  // over its positions q; Col_n's rows are contiguous along k. Then the
  // groups' partial sums are added.
  Value partials =
      createFilled(b, loc,
                   {b.getIndexAttr(kFilterGradientGroups),
                    b.getIndexAttr(filters), b.getIndexAttr(inner)},
                   f32, 0.0);
  Value images = getValueOrCreateConstantIndexOp(b, loc, dySizes[0]);
  Value groupCount =
      arith::ConstantIndexOp::create(b, loc, kFilterGradientGroups);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(kFilterGradientGroups)},
      ValueRange{partials}, std::nullopt);
  forall->setAttr(kCpuDecisionAttr,
                  b.getStringAttr("filter gradient summed in 4 image groups "
                                  "in parallel, im2col per image"));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forall.getBody());
    Value group = forall.getInductionVar(0);
    Value out = forall.getRegionIterArgs()[0];
    auto boundary = [&](Value g) -> Value {
      return arith::DivUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, images, g), groupCount);
    };
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value first = boundary(group);
    Value last = boundary(arith::AddIOp::create(b, loc, group, one));
    SmallVector<OpFoldResult> offsets = {group, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {
        b.getIndexAttr(1), b.getIndexAttr(filters), b.getIndexAttr(inner)};
    SmallVector<OpFoldResult> unit(3, b.getIndexAttr(1));
    auto sliceType = RankedTensorType::get({filters, inner}, f32);
    Value start = tensor::ExtractSliceOp::create(b, loc, sliceType, out,
                                                 offsets, sizes, unit);
    auto loop = scf::ForOp::create(
        b, loc, first, last, one, ValueRange{start},
        [&](OpBuilder &nb, Location l, Value n, ValueRange args) {
          Value image = sliceImage(nb, l, paddedInput, n);
          Value columns = buildImageColumns(
              nb, l, image, filterShape.drop_front(2), {dySizes[2], dySizes[3]},
              strides, dilations, ColumnLayout::PositionMajor);
          Value gradients = tensor::CollapseShapeOp::create(
              nb, l, sliceImage(nb, l, dY, n),
              ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
          // Loops (f, k, q).
          Value sum = buildMultiplyAccumulate(
              nb, l, gradients, columns, args[0],
              {AffineMap::get(3, 0, {d(0), d(2)}, context),
               AffineMap::get(3, 0, {d(2), d(1)}, context),
               AffineMap::get(3, 0, {d(0), d(1)}, context)},
              {utils::IteratorType::parallel, utils::IteratorType::parallel,
               utils::IteratorType::reduction});
          scf::YieldOp::create(nb, l, sum);
        });
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, loop.getResult(0), out,
                                          offsets, sizes, unit);
  }
  Value init = createFilled(
      b, loc, {b.getIndexAttr(filters), b.getIndexAttr(inner)}, f32, 0.0);
  Value total =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{forall.getResult(0)},
          ValueRange{init},
          ArrayRef<AffineMap>{AffineMap::get(3, 0, {d(0), d(1), d(2)}, context),
                              AffineMap::get(3, 0, {d(1), d(2)}, context)},
          ArrayRef<utils::IteratorType>{utils::IteratorType::reduction,
                                        utils::IteratorType::parallel,
                                        utils::IteratorType::parallel},
          [](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::AddFOp::create(nb, l, args[1], args[0])
                               .getResult()});
          })
          .getResult(0);
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(filterShape, f32), total,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}},
      getAsIndexOpFoldResult(context, filterShape));
}

static Value buildConvolutionOps(OpBuilder &b, Location loc, Value input,
                                 Value filter, Value init,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations, int64_t group);

Value buildConvolution(OpBuilder &b, Location loc, Value input, Value filter,
                       Value init, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations, int64_t group, bool relu) {
  if (strides.size() == 2 && convolvesAsProduct(input, filter, init, group))
    return buildConvolutionProduct(b, loc, input, filter, init, strides,
                                   dilations, relu);
  Value result = buildConvolutionOps(b, loc, input, filter, init, strides,
                                     dilations, group);
  return relu ? applyRelu(b, loc, result) : result;
}

/// The convolutions that are not matrix products: linalg's named ops, or a
/// generic.
static Value buildConvolutionOps(OpBuilder &b, Location loc, Value input,
                                 Value filter, Value init,
                                 ArrayRef<int64_t> strides,
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
