//===- PoolGrad.cpp - onnx.MaxPoolGrad, onnx.AveragePoolGrad -> linalg ----===//
//
// MaxPoolGrad: ORT's kernel adds every dY element at its flat index
// (MaxPool's Indices, row-major over all of X). As a gather: each dX element
// p and kernel offset kk per spatial axis name at most one window o (o * s -
// pad + kk * d = p, o < out), whose dY element p receives when o's index is
// p's flat position. When the windows tile the input (kernel = stride, no
// padding or dilation) p has one candidate, o = p / s, and no sum is built.
// AveragePoolGrad: a gather over each dX element p and kernel offset kk per
// spatial axis: the window o with o * s - pad + kk = p (if any, o < out)
// contributes dY[o] / count(o), count being the kernel size with
// count_include_pad, else the window clipped to [0, in) (ORT's kernel; its
// windows ignore dilations, which the verifier rejects).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"
#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// dX's sizes: batch and channels from dY, spatial dims static.
FailureOr<SmallVector<OpFoldResult>>
pooledInputSizes(OpBuilder &b, Location loc, Value dY, RankedTensorType type) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, dY);
  for (int64_t i = 2; i < type.getRank(); ++i) {
    if (type.isDynamicDim(i))
      return failure();
    sizes[i] = b.getIndexAttr(type.getDimSize(i));
  }
  return sizes;
}

/// The gradient's own inputs do not say how large the pooled input was
/// when its spatial size is not known at compile time (a model exported
/// with dynamic image sizes): a clear error at the node.
static LogicalResult unknownPooledSize(Operation *op) {
  return op->emitError()
         << "node '" << onnx::getNodeName(op) << "' (" << op->getName()
         << "): the pooled input's spatial size must be known at compile "
            "time to compute its gradient; export the model with a fixed "
            "image size (only the batch dim symbolic)";
}

struct LowerMaxPoolGrad : OpConversionPattern<onnx::MaxPoolGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MaxPoolGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getDX().getType());
    Type type = resultType.getElementType();
    Value dY = adaptor.getDY(), indices = adaptor.getIndices();
    FailureOr<SmallVector<OpFoldResult>> sizes =
        pooledInputSizes(rewriter, loc, dY, resultType);
    if (failed(sizes))
      return unknownPooledSize(op);
    if (!op.getKernelShape())
      return rewriter.notifyMatchFailure(op, "no kernel_shape");
    int64_t n = resultType.getRank() - 2;
    SmallVector<int64_t> kernel(*op.getKernelShape());
    FailureOr<onnx::GradWindow> window = onnx::readGradWindow(
        op, kernel, SmallVector<int64_t>(resultType.getShape().drop_front(2)));
    if (failed(window))
      return failure();
    SmallVector<OpFoldResult> dySizes = getSizes(rewriter, loc, dY);
    SmallVector<Value> outSizes, inSizes;
    for (int64_t i = 0; i < n + 2; ++i) {
      inSizes.push_back(
          getValueOrCreateConstantIndexOp(rewriter, loc, (*sizes)[i]));
      if (i >= 2)
        outSizes.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, dySizes[i]));
    }
    // Windows that tile the input (kernel = stride, no padding or
    // dilation, LeNet's 2x2 pools): each dX element lies in at most one
    // window, o = p / s, so there is nothing to sum over kernel offsets.
    bool tiled = true;
    for (int64_t i = 0; i < n; ++i)
      tiled &= window->strides[i] == kernel[i] && window->dilations[i] == 1 &&
               window->padsBegin[i] == 0 && window->padsEnd[i] == 0;
    SmallVector<OpFoldResult> domain(sizes->begin(), sizes->end());
    // The flat (row-major) position of the dX element at the loops' first
    // n + 2 dims.
    auto flatPosition = [&](OpBuilder &b, Location l) -> Value {
      Value flat = linalg::IndexOp::create(b, l, 0);
      for (int64_t i = 1; i < n + 2; ++i)
        flat = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, flat, inSizes[i]),
            linalg::IndexOp::create(b, l, i));
      return flat;
    };
    // Windows that tile the input exactly (in = out * kernel along each
    // axis): the window of p is o = p floordiv s, an affine map, so dY and
    // Indices are inputs of the generic read through it rather than
    // gathered in its body. The CPU then reads each row of them as half a
    // row repeated (odt-vectorize-rows); a gather kept LeNet-5's pooling
    // gradients scalar, 13% of its training step.
    bool exactTiles = tiled;
    for (int64_t i = 0; i < n && exactTiles; ++i) {
      std::optional<int64_t> out = getConstantIntValue(dySizes[2 + i]);
      exactTiles = out && *out * kernel[i] == resultType.getDimSize(2 + i);
    }
    if (exactTiles) {
      MLIRContext *context = rewriter.getContext();
      SmallVector<AffineExpr> windowExprs = {getAffineDimExpr(0, context),
                                             getAffineDimExpr(1, context)};
      for (int64_t i = 0; i < n; ++i)
        windowExprs.push_back(
            getAffineDimExpr(2 + i, context).floorDiv(kernel[i]));
      AffineMap windowMap = AffineMap::get(n + 2, 0, windowExprs, context);
      Value dX =
          sumOver(rewriter, loc, domain, {}, {dY, indices},
                  {windowMap, windowMap}, {type},
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    Value flat = flatPosition(b, l);
                    Value chosen = arith::IndexCastOp::create(
                        b, l, b.getIndexType(), args[1]);
                    Value hit = arith::CmpIOp::create(
                        b, l, arith::CmpIPredicate::eq, chosen, flat);
                    return SmallVector<Value>{arith::SelectOp::create(
                        b, l, hit, args[0], createScalar(b, l, type, 0.0))};
                  })
              .front();
      rewriter.replaceOp(op, castTensor(rewriter, loc, dX, resultType));
      return success();
    }
    SmallVector<int64_t> reduced;
    for (int64_t i = 0; i < n && !tiled; ++i) {
      domain.push_back(rewriter.getIndexAttr(kernel[i]));
      reduced.push_back(2 + n + i);
    }
    Value dX =
        sumOver(rewriter, loc, domain, reduced, {}, {}, {type},
                [&](OpBuilder &b, Location l, ValueRange) {
                  auto index = [&](int64_t i) -> Value {
                    return linalg::IndexOp::create(b, l, i);
                  };
                  SmallVector<Value> at = {index(0), index(1)};
                  Value flat = flatPosition(b, l);
                  Value valid;
                  for (int64_t i = 0; i < n; ++i) {
                    Value o, ok;
                    if (tiled) {
                      o = arith::DivUIOp::create(
                          b, l, index(2 + i),
                          arith::ConstantIndexOp::create(b, l, kernel[i]));
                      ok = arith::CmpIOp::create(
                          b, l, arith::CmpIPredicate::ult, o, outSizes[i]);
                      o = arith::SelectOp::create(
                          b, l, ok, o, arith::ConstantIndexOp::create(b, l, 0));
                    } else {
                      std::tie(o, ok) =
                          windowAt(b, l, index(2 + i), index(2 + n + i),
                                   *window, i, outSizes[i]);
                    }
                    valid = valid ? arith::AndIOp::create(b, l, valid, ok) : ok;
                    at.push_back(o);
                  }
                  Value chosen = arith::IndexCastOp::create(
                      b, l, b.getIndexType(),
                      tensor::ExtractOp::create(b, l, indices, at));
                  Value hit = arith::AndIOp::create(
                      b, l, valid,
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            chosen, flat));
                  Value grad = tensor::ExtractOp::create(b, l, dY, at);
                  Value zero = createScalar(b, l, type, 0.0);
                  return SmallVector<Value>{
                      arith::SelectOp::create(b, l, hit, grad, zero)};
                })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, dX, resultType));
    return success();
  }
};

struct LowerAveragePoolGrad : OpConversionPattern<onnx::AveragePoolGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AveragePoolGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getDX().getType());
    Type type = resultType.getElementType();
    Value dY = adaptor.getDY();
    FailureOr<SmallVector<OpFoldResult>> sizes =
        pooledInputSizes(rewriter, loc, dY, resultType);
    if (failed(sizes))
      return unknownPooledSize(op);
    int64_t n = resultType.getRank() - 2;
    SmallVector<int64_t> kernel(op.getKernelShape());
    FailureOr<onnx::GradWindow> window = onnx::readGradWindow(
        op, kernel, SmallVector<int64_t>(resultType.getShape().drop_front(2)));
    if (failed(window))
      return failure();
    bool includePad = op.getCountIncludePad() != 0;
    int64_t kernelSize = 1;
    for (int64_t k : kernel)
      kernelSize *= k;
    SmallVector<OpFoldResult> dySizes = getSizes(rewriter, loc, dY);
    SmallVector<Value> outSizes;
    for (int64_t i = 0; i < n; ++i)
      outSizes.push_back(
          getValueOrCreateConstantIndexOp(rewriter, loc, dySizes[2 + i]));
    SmallVector<OpFoldResult> domain(sizes->begin(), sizes->end());
    SmallVector<int64_t> reduced;
    for (int64_t i = 0; i < n; ++i) {
      domain.push_back(rewriter.getIndexAttr(kernel[i]));
      reduced.push_back(2 + n + i);
    }
    Value dX =
        sumOver(
            rewriter, loc, domain, reduced, {}, {}, {type},
            [&](OpBuilder &b, Location l, ValueRange) {
              auto index = [&](int64_t i) -> Value {
                return linalg::IndexOp::create(b, l, i);
              };
              auto cst = [&](int64_t v) { return indexConstant(b, l, v); };
              Value zeroIndex = cst(0);
              SmallVector<Value> at = {index(0), index(1)};
              Value valid, count;
              for (int64_t i = 0; i < n; ++i) {
                Value pad = cst(window->padsBegin[i]);
                Value t = arith::SubIOp::create(
                    b, l, arith::AddIOp::create(b, l, index(2 + i), pad),
                    index(2 + n + i));
                Value s = cst(window->strides[i]);
                Value o = arith::DivSIOp::create(b, l, t, s);
                Value ok = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, t,
                                          zeroIndex),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                          arith::RemSIOp::create(b, l, t, s),
                                          zeroIndex));
                ok = arith::AndIOp::create(
                    b, l, ok,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, o,
                                          outSizes[i]));
                valid = valid ? arith::AndIOp::create(b, l, valid, ok) : ok;
                Value safe = arith::SelectOp::create(b, l, ok, o, zeroIndex);
                at.push_back(safe);
                if (!includePad) {
                  // The window of `safe` clipped to [0, in).
                  Value start = arith::SubIOp::create(
                      b, l, arith::MulIOp::create(b, l, safe, s), pad);
                  Value end =
                      arith::AddIOp::create(b, l, start, cst(kernel[i]));
                  Value in =
                      getValueOrCreateConstantIndexOp(b, l, (*sizes)[2 + i]);
                  Value extent = arith::SubIOp::create(
                      b, l, arith::MinSIOp::create(b, l, end, in),
                      arith::MaxSIOp::create(b, l, start, zeroIndex));
                  count = count ? arith::MulIOp::create(b, l, count, extent)
                                : extent;
                }
              }
              if (includePad)
                count = cst(kernelSize);
              // An invalid window reads dY at 0 and its count may be 0.
              count = arith::MaxSIOp::create(b, l, count, cst(1));
              Value grad = tensor::ExtractOp::create(b, l, dY, at);
              Value share = arith::DivFOp::create(
                  b, l, grad, indexToFloat(b, l, count, type));
              Value zero = createScalar(b, l, type, 0.0);
              return SmallVector<Value>{
                  arith::SelectOp::create(b, l, valid, share, zero)};
            })
            .front();
    rewriter.replaceOp(op, castTensor(rewriter, loc, dX, resultType));
    return success();
  }
};

} // namespace

void populatePoolGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMaxPoolGrad, LowerAveragePoolGrad>(patterns.getContext());
}

} // namespace odt::codegen
