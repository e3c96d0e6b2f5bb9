//===- ConvTranspose.cpp - onnx.ConvTranspose -> linalg -------------------===//
//
// ConvTranspose as a plain convolution, without scatter:
//   1. X is dilated by the strides (inserted into zeros with a strided
//      tensor.insert_slice),
//   2. padded by effK - 1 - pad at the beginning and effK - 1 - pad +
//      output_padding at the end (negative amounts crop, with an
//      extract_slice), so the result has out + effK - 1 positions per axis,
//   3. convolved (stride 1, the op's dilations, the op's group) with the
//      kernel flipped along every spatial axis and with its channel dims
//      swapped per group: W'[g*M/G + m, c, k] = W[g*C/G + c, m, K - 1 - k].
// The convolution is the shared NN kernel (named linalg ops where they fit).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/NNUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// W [C, M/G, k...] -> [M, C/G, k...] flipped along every spatial axis.
Value flipKernel(OpBuilder &b, Location loc, Value w, int64_t group) {
  auto type = cast<RankedTensorType>(w.getType());
  int64_t spatialRank = type.getRank() - 2;
  MLIRContext *context = b.getContext();
  // [G, C/G, M/G, k...]
  SmallVector<IndexValue> sizes = getIndexSizes(b, loc, w);
  IndexValue cPerGroup = floorDiv(sizes[0], group);
  SmallVector<OpFoldResult> splitSizes = {b.getIndexAttr(group),
                                          cPerGroup.get(), sizes[1].get()};
  SmallVector<int64_t> splitShape = {group,
                                     cPerGroup.getConstant().value_or(
                                         ShapedType::kDynamic),
                                     type.getDimSize(1)};
  SmallVector<ReassociationIndices> splitGroups = {{0, 1}, {2}};
  for (int64_t i = 0; i < spatialRank; ++i) {
    splitSizes.push_back(sizes[2 + i].get());
    splitShape.push_back(type.getDimSize(2 + i));
    splitGroups.push_back({3 + i});
  }
  Value split = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(splitShape, type.getElementType()), w,
      splitGroups, splitSizes);

  // [G, M/G, C/G, k...] reading (g, c, m, K - 1 - k).
  SmallVector<OpFoldResult> flippedSizes = {splitSizes[0], splitSizes[2],
                                            splitSizes[1]};
  int64_t rank = 3 + spatialRank;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineExpr> readExprs = {d(0), d(2), d(1)};
  for (int64_t i = 0; i < spatialRank; ++i) {
    flippedSizes.push_back(splitSizes[3 + i]);
    readExprs.push_back(type.getDimSize(2 + i) - 1 - d(3 + i));
  }
  Value empty = createEmpty(b, loc, flippedSizes, type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, readExprs, context),
                                 identityMap(context, rank)};
  Value flipped =
      linalg::GenericOp::create(
          b, loc, TypeRange{empty.getType()}, ValueRange{split},
          ValueRange{empty}, maps, parallelIterators(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(nb, l, args[0]);
          })
          .getResult(0);
  // [M, C/G, k...]
  SmallVector<ReassociationIndices> mergeGroups = {{0, 1}, {2}};
  for (int64_t i = 0; i < spatialRank; ++i)
    mergeGroups.push_back({3 + i});
  return tensor::CollapseShapeOp::create(b, loc, flipped, mergeGroups);
}

struct LowerConvTranspose : OpConversionPattern<onnx::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
    if (!resultType || !xType || !wType)
      return rewriter.notifyMatchFailure(op, "operands must be ranked");
    int64_t spatialRank = xType.getRank() - 2;
    ArrayRef<int64_t> wSpatial = wType.getShape().drop_front(2);
    if (llvm::any_of(wSpatial, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "kernel dims must be static");
    FailureOr<SmallVector<int64_t>> kernel =
        onnx::readKernelShape(op, spatialRank, wSpatial);
    if (failed(kernel))
      return failure();
    FailureOr<onnx::WindowAttrs> attrs = onnx::readWindowAttrs(op, *kernel);
    if (failed(attrs))
      return failure();

    int64_t group = op.getGroup();
    Value x = adaptor.getX(), w = adaptor.getW();
    Type elementType = xType.getElementType();
    Type accType = getComputeType(elementType);
    SmallVector<IndexValue> xSizes = getIndexSizes(rewriter, loc, x);
    IndexValue zero = IndexValue::constant(rewriter, loc, 0);
    Value zeroScalar = createScalar(rewriter, loc, elementType, 0.0);

    // 1. Dilation by the strides.
    if (llvm::any_of(attrs->strides, [](int64_t s) { return s != 1; })) {
      SmallVector<OpFoldResult> dilatedSizes = {xSizes[0].get(),
                                                xSizes[1].get()};
      SmallVector<OpFoldResult> offsets(xType.getRank(), zero.get());
      SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
      for (int64_t i = 0; i < spatialRank; ++i) {
        int64_t s = attrs->strides[i];
        dilatedSizes.push_back(((xSizes[2 + i] - 1) * s + 1).get());
        strides.push_back(rewriter.getIndexAttr(s));
      }
      Value zeros =
          createFilled(rewriter, loc, dilatedSizes, elementType, 0.0);
      x = tensor::InsertSliceOp::create(rewriter, loc, x, zeros, offsets,
                                        toFoldResults(xSizes), strides);
    }

    // 2. Padding (or cropping) to out + effK - 1 per axis.
    SmallVector<OpFoldResult> low(2, zero.get()), high(2, zero.get());
    SmallVector<OpFoldResult> cropOffsets(2, zero.get());
    SmallVector<OpFoldResult> cropSizes = {xSizes[0].get(), xSizes[1].get()};
    SmallVector<OpFoldResult> outSizes = {
        xSizes[0].get(),
        (IndexValue::dim(rewriter, loc, w, 1) * group).get()};
    bool crop = false;
    for (int64_t i = 0; i < spatialRank; ++i) {
      onnx::AxisWindow<IndexValue> window =
          onnx::transposeWindow(*attrs, i, xSizes[2 + i]);
      int64_t reach = attrs->getEffectiveKernel(i) - 1;
      IndexValue before = constantLike(zero, reach) - window.padBegin;
      IndexValue after = constantLike(zero, reach + attrs->outputPadding[i]) -
                         window.padEnd;
      IndexValue out = maxOf(window.out, 0);
      low.push_back(maxOf(before, 0).get());
      high.push_back(maxOf(after, 0).get());
      IndexValue cropBegin = maxOf(zero - before, 0);
      cropOffsets.push_back(cropBegin.get());
      cropSizes.push_back((out + reach).get());
      outSizes.push_back(out.get());
      crop |= cropBegin.getConstant() != 0 ||
              !after.getConstant() || *after.getConstant() < 0;
    }
    Value padded = padTensor(rewriter, loc, x, low, high, zeroScalar);
    if (crop) {
      SmallVector<OpFoldResult> unit(xType.getRank(), rewriter.getIndexAttr(1));
      padded = tensor::ExtractSliceOp::create(rewriter, loc, padded,
                                              cropOffsets, cropSizes, unit);
    }

    // 3. The convolution with the flipped kernel.
    Value filter = flipKernel(rewriter, loc, w, group);
    Value bias = onnx::isNoValue(adaptor.getB()) ? Value() : adaptor.getB();
    Value init = createBiasInit(rewriter, loc, bias, outSizes, accType);
    SmallVector<int64_t> unitStrides(spatialRank, 1);
    Value result = buildConvolution(rewriter, loc, padded, filter, init,
                                    unitStrides, attrs->dilations, group);
    result = convertTensor(rewriter, loc, result, elementType);
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateConvTransposeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConvTranspose>(patterns.getContext());
}

} // namespace odt::codegen
