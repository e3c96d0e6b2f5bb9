//===- LayerNormalizationGrad.cpp - layer and RMS normalization -> linalg -===//
//
// X's dims split into rows [0, axis) and the normalized dims [axis, rank)
// with M elements per row; the per-row statistics are read through the row
// dims (trailing unit dims collapsed away).
//
// LayerNormalizationGrad (ORT's function body):
//   xhat = (X - mean) * inv_std_dev, B = Y_grad * scale * inv_std_dev
//   bias_grad = sum_rows(Y_grad), scale_grad = sum_rows(Y_grad * xhat)
//   X_grad = B - mean_M(B) - xhat * mean_M(B * xhat)
// SimplifiedLayerNormalization:
//   inv_std_var = 1 / sqrt(mean_M(X^2) + epsilon), Y = X * inv_std_var * scale
// SimplifiedLayerNormalizationGrad:
//   xhat = X * inv_std_var, B = Y_grad * scale * inv_std_var
//   scale_grad = sum_rows(Y_grad * xhat), X_grad = B - xhat * mean_M(B * xhat)
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// The row/column layout of a normalization over X.
struct NormLayout {
  int64_t rank, axis;
  SmallVector<int64_t> rows, cols;
  SmallVector<OpFoldResult> sizes;
  AffineMap identity, rowMap, colMap;

  NormLayout(OpBuilder &b, Location loc, Value x, int64_t axisAttr) {
    rank = cast<RankedTensorType>(x.getType()).getRank();
    axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
    for (int64_t i = 0; i < rank; ++i)
      (i < axis ? rows : cols).push_back(i);
    sizes = getSizes(b, loc, x);
    MLIRContext *context = b.getContext();
    identity = identityMap(context, rank);
    rowMap = projection(context, rank, rows);
    colMap = projection(context, rank, cols);
  }

  /// A per-row statistic as a tensor of the row dims.
  Value rowStatistic(OpBuilder &b, Location loc, Value stat) const {
    auto type = cast<RankedTensorType>(stat.getType());
    SmallVector<bool> keep;
    for (int64_t i = 0; i < type.getRank(); ++i)
      keep.push_back(i < axis);
    return dropUnitDims(b, loc, stat, keep);
  }

  /// M, the number of normalized elements per row, as a float.
  Value count(OpBuilder &b, Location loc, Value x, Type type) const {
    return indexToFloat(b, loc, dimProduct(b, loc, x, axis, rank), type);
  }
};

bool sameElementTypes(ValueRange values) {
  Type first = getElementTypeOrSelf(values.front().getType());
  return llvm::all_of(values, [&](Value v) {
    return getElementTypeOrSelf(v.getType()) == first;
  });
}

struct LowerLayerNormalizationGrad
    : OpConversionPattern<onnx::LayerNormalizationGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LayerNormalizationGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!sameElementTypes(adaptor.getOperands()))
      return rewriter.notifyMatchFailure(op, "mixed element types");
    Location loc = op.getLoc();
    Value dY = adaptor.getYGrad(), x = adaptor.getX(), scale = adaptor.getScale();
    NormLayout layout(rewriter, loc, x, op.getAxis());
    Value mean = layout.rowStatistic(rewriter, loc, adaptor.getMean());
    Value inv = layout.rowStatistic(rewriter, loc, adaptor.getInvStdDev());
    Type type = getElementTypeOrSelf(x.getType());
    SmallVector<Value> inputs = {dY, x, scale, mean, inv};
    SmallVector<AffineMap> maps = {layout.identity, layout.identity,
                                   layout.colMap, layout.rowMap, layout.rowMap};
    // a = dY, xhat = (x - mean) * inv, bterm = dY * scale * inv
    auto terms = [](OpBuilder &b, Location l, ValueRange args) {
      Value xhat = arith::MulFOp::create(
          b, l, arith::SubFOp::create(b, l, args[1], args[3]), args[4]);
      Value bterm = arith::MulFOp::create(
          b, l, arith::MulFOp::create(b, l, args[0], args[2]), args[4]);
      return std::make_pair(xhat, bterm);
    };
    // Per row: sum of B and of B * xhat over the normalized dims.
    SmallVector<Value> rowSums = sumOver(
        rewriter, loc, layout.sizes, layout.cols, inputs, maps, {type, type},
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto [xhat, bterm] = terms(b, l, args);
          return SmallVector<Value>{bterm,
                                    arith::MulFOp::create(b, l, bterm, xhat)};
        });
    // Per normalized element: bias_grad and scale_grad over the rows.
    SmallVector<Value> colSums = sumOver(
        rewriter, loc, layout.sizes, layout.rows, inputs, maps, {type, type},
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto [xhat, bterm] = terms(b, l, args);
          (void)bterm;
          return SmallVector<Value>{args[0],
                                    arith::MulFOp::create(b, l, args[0], xhat)};
        });
    Value m = layout.count(rewriter, loc, x, type);
    auto xGradType = cast<RankedTensorType>(op.getXGrad().getType());
    Value init = emptyLike(rewriter, loc, xGradType, layout.sizes);
    SmallVector<Value> finalInputs = inputs;
    finalInputs.append(rowSums);
    SmallVector<AffineMap> finalMaps = maps;
    finalMaps.append({layout.rowMap, layout.rowMap, layout.identity});
    Value xGrad =
        buildGeneric(rewriter, loc, finalInputs, {init}, finalMaps,
                     parallelIterators(layout.rank),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       auto [xhat, bterm] = terms(b, l, args);
                       Value meanB = arith::DivFOp::create(b, l, args[5], m);
                       Value meanC = arith::DivFOp::create(b, l, args[6], m);
                       Value diff = arith::SubFOp::create(b, l, bterm, meanB);
                       return SmallVector<Value>{arith::SubFOp::create(
                           b, l, diff, arith::MulFOp::create(b, l, xhat, meanC))};
                     })
            .front();
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, xGrad, xGradType),
             castTensor(rewriter, loc, colSums[1], op.getScaleGrad().getType()),
             castTensor(rewriter, loc, colSums[0], op.getBiasGrad().getType())});
    return success();
  }
};

struct LowerSimplifiedLayerNormalization
    : OpConversionPattern<onnx::SimplifiedLayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SimplifiedLayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto invType = cast<RankedTensorType>(op.getInvStdVar().getType());
    Type type = getElementTypeOrSelf(adaptor.getX().getType());
    if (invType.getElementType() != type ||
        !sameElementTypes(adaptor.getOperands()))
      return rewriter.notifyMatchFailure(op, "mixed element types");
    Location loc = op.getLoc();
    Value x = adaptor.getX(), scale = adaptor.getScale();
    NormLayout layout(rewriter, loc, x, op.getAxis());
    Value sumSq =
        sumOver(rewriter, loc, layout.sizes, layout.cols, {x}, {layout.identity},
                {type},
                [](OpBuilder &b, Location l, ValueRange args) {
                  return SmallVector<Value>{
                      arith::MulFOp::create(b, l, args[0], args[0])};
                })
            .front();
    Value m = layout.count(rewriter, loc, x, type);
    Value epsilon = createScalar(rewriter, loc, type,
                                 op.getEpsilon().convertToDouble());
    Value one = createScalar(rewriter, loc, type, 1.0);
    Value invInit = createEmpty(rewriter, loc, getSizes(rewriter, loc, sumSq), type);
    Value inv = buildElementwise(
                    rewriter, loc, {sumSq}, {invInit},
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value meanSq = arith::DivFOp::create(b, l, args[0], m);
                      Value root = math::SqrtOp::create(
                          b, l, arith::AddFOp::create(b, l, meanSq, epsilon));
                      return SmallVector<Value>{
                          arith::DivFOp::create(b, l, one, root)};
                    })
                    .front();
    auto yType = cast<RankedTensorType>(op.getY().getType());
    Value init = emptyLike(rewriter, loc, yType, layout.sizes);
    Value y = buildGeneric(rewriter, loc, {x, inv, scale}, {init},
                           {layout.identity, layout.rowMap, layout.colMap,
                            layout.identity},
                           parallelIterators(layout.rank),
                           [](OpBuilder &b, Location l, ValueRange args) {
                             Value normalized =
                                 arith::MulFOp::create(b, l, args[0], args[1]);
                             return SmallVector<Value>{
                                 arith::MulFOp::create(b, l, normalized, args[2])};
                           })
                  .front();
    SmallVector<bool> keep;
    for (int64_t i = 0; i < invType.getRank(); ++i)
      keep.push_back(i < layout.axis);
    rewriter.replaceOp(op, {castTensor(rewriter, loc, y, yType),
                            insertUnitDims(rewriter, loc, inv, invType, keep)});
    return success();
  }
};

struct LowerSimplifiedLayerNormalizationGrad
    : OpConversionPattern<onnx::SimplifiedLayerNormalizationGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::SimplifiedLayerNormalizationGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!sameElementTypes(adaptor.getOperands()))
      return rewriter.notifyMatchFailure(op, "mixed element types");
    Location loc = op.getLoc();
    Value dY = adaptor.getYGrad(), x = adaptor.getX(), scale = adaptor.getScale();
    NormLayout layout(rewriter, loc, x, op.getAxis());
    Value inv = layout.rowStatistic(rewriter, loc, adaptor.getInvStdVar());
    Type type = getElementTypeOrSelf(x.getType());
    SmallVector<Value> inputs = {dY, x, scale, inv};
    SmallVector<AffineMap> maps = {layout.identity, layout.identity,
                                   layout.colMap, layout.rowMap};
    auto terms = [](OpBuilder &b, Location l, ValueRange args) {
      Value xhat = arith::MulFOp::create(b, l, args[1], args[3]);
      Value bterm = arith::MulFOp::create(
          b, l, arith::MulFOp::create(b, l, args[0], args[2]), args[3]);
      return std::make_pair(xhat, bterm);
    };
    Value rowSum =
        sumOver(rewriter, loc, layout.sizes, layout.cols, inputs, maps, {type},
                [&](OpBuilder &b, Location l, ValueRange args) {
                  auto [xhat, bterm] = terms(b, l, args);
                  return SmallVector<Value>{
                      arith::MulFOp::create(b, l, bterm, xhat)};
                })
            .front();
    Value scaleGrad =
        sumOver(rewriter, loc, layout.sizes, layout.rows, inputs, maps, {type},
                [&](OpBuilder &b, Location l, ValueRange args) {
                  auto [xhat, bterm] = terms(b, l, args);
                  (void)bterm;
                  return SmallVector<Value>{
                      arith::MulFOp::create(b, l, args[0], xhat)};
                })
            .front();
    Value m = layout.count(rewriter, loc, x, type);
    auto xGradType = cast<RankedTensorType>(op.getXGrad().getType());
    Value init = emptyLike(rewriter, loc, xGradType, layout.sizes);
    SmallVector<Value> finalInputs = inputs;
    finalInputs.push_back(rowSum);
    SmallVector<AffineMap> finalMaps = maps;
    finalMaps.append({layout.rowMap, layout.identity});
    Value xGrad =
        buildGeneric(rewriter, loc, finalInputs, {init}, finalMaps,
                     parallelIterators(layout.rank),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       auto [xhat, bterm] = terms(b, l, args);
                       Value meanC = arith::DivFOp::create(b, l, args[4], m);
                       return SmallVector<Value>{arith::SubFOp::create(
                           b, l, bterm, arith::MulFOp::create(b, l, xhat, meanC))};
                     })
            .front();
    rewriter.replaceOp(
        op, {castTensor(rewriter, loc, xGrad, xGradType),
             castTensor(rewriter, loc, scaleGrad, op.getScaleGrad().getType())});
    return success();
  }
};

} // namespace

void populateLayerNormalizationGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLayerNormalizationGrad, LowerSimplifiedLayerNormalization,
               LowerSimplifiedLayerNormalizationGrad>(patterns.getContext());
}

} // namespace odt::codegen
