//===- AveragePool.cpp - onnx.AveragePool -> linalg -----------------------===//
//
// Sum pooling over X zero-padded by the window's pads (plus the overhang of
// the last window with ceil_mode), then a division by the number of taps
// that count: all kernel taps inside [-pad_begin, in + pad_end) with
// count_include_pad = 1, those inside the input [0, in) otherwise (the
// overhang never counts, as in ONNX Runtime). Where every window counts its
// whole kernel, the divisor is a constant; otherwise an elementwise
// linalg.generic computes it from the output position (linalg.index).
// f16/bf16 sum in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/NNUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerAveragePool : OpConversionPattern<onnx::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!resultType || !xType)
      return rewriter.notifyMatchFailure(op, "operands must be ranked");
    int64_t spatialRank = xType.getRank() - 2;
    FailureOr<SmallVector<int64_t>> kernel =
        onnx::readKernelShape(op, spatialRank, std::nullopt);
    if (failed(kernel))
      return failure();
    FailureOr<onnx::WindowAttrs> attrs = onnx::readWindowAttrs(op, *kernel);
    if (failed(attrs))
      return failure();
    bool includePad = op.getCountIncludePad() == 1;

    Value x = adaptor.getX();
    Type elementType = xType.getElementType();
    Type accType = getComputeType(elementType);
    SmallVector<IndexValue> xSizes = getIndexSizes(rewriter, loc, x);
    IndexValue zero = IndexValue::constant(rewriter, loc, 0);
    SmallVector<OpFoldResult> low(2, zero.get()), high(2, zero.get());
    SmallVector<OpFoldResult> outSizes = {xSizes[0].get(), xSizes[1].get()};
    SmallVector<onnx::AxisWindow<IndexValue>> windows;
    // Whether every window counts all kernel taps.
    bool wholeKernels = true;
    for (int64_t i = 0; i < spatialRank; ++i) {
      onnx::AxisWindow<IndexValue> window =
          onnx::forwardWindow(*attrs, i, xSizes[2 + i]);
      IndexValue overhang = zero;
      if (attrs->ceilMode)
        overhang = onnx::windowOverhang(*attrs, i, xSizes[2 + i], window);
      low.push_back(window.padBegin.get());
      high.push_back((window.padEnd + overhang).get());
      outSizes.push_back(maxOf(window.out, 0).get());
      windows.push_back(window);
      wholeKernels &= overhang.getConstant() == 0 &&
                      (includePad || (window.padBegin.getConstant() == 0 &&
                                      window.padEnd.getConstant() == 0));
    }
    Value padded = padTensor(rewriter, loc, x, low, high,
                             createScalar(rewriter, loc, elementType, 0.0));
    Value init = createFilled(rewriter, loc, outSizes, accType, 0.0);
    Value sum = buildPooling(rewriter, loc, PoolKind::Sum, padded, init,
                             attrs->kernel, attrs->strides, attrs->dilations);

    Value empty = createEmpty(rewriter, loc, outSizes, accType);
    Value average;
    if (wholeKernels) {
      int64_t taps = 1;
      for (int64_t k : attrs->kernel)
        taps *= k;
      Value divisor =
          createScalar(rewriter, loc, accType, static_cast<double>(taps));
      average = buildElementwise(
                    rewriter, loc, {sum}, {empty},
                    [&](OpBuilder &nb, Location l, ValueRange args) {
                      return SmallVector<Value>{
                          arith::DivFOp::create(nb, l, args[0], divisor)};
                    })
                    .front();
    } else {
      // Bounds of the counted region per axis, outside the loops.
      SmallVector<Value> lower, upper, pads;
      for (int64_t i = 0; i < spatialRank; ++i) {
        const onnx::AxisWindow<IndexValue> &window = windows[i];
        IndexValue lo = includePad ? zero - window.padBegin : zero;
        IndexValue hi = includePad ? xSizes[2 + i] + window.padEnd
                                   : xSizes[2 + i];
        lower.push_back(lo.materialize());
        upper.push_back(hi.materialize());
        pads.push_back(window.padBegin.materialize());
      }
      average = buildElementwise(
                    rewriter, loc, {sum}, {empty},
                    [&](OpBuilder &nb, Location l, ValueRange args) {
                      IndexValue count = IndexValue::constant(nb, l, 1);
                      for (int64_t i = 0; i < spatialRank; ++i) {
                        int64_t stride = attrs->strides[i];
                        int64_t dilation = attrs->dilations[i];
                        IndexValue o(nb, l,
                                     linalg::IndexOp::create(nb, l, 2 + i)
                                         .getResult());
                        // Tap j reads start + j * dilation.
                        IndexValue start = o * stride - IndexValue(nb, l, pads[i]);
                        IndexValue first = maxOf(
                            ceilDiv(IndexValue(nb, l, lower[i]) - start,
                                    dilation),
                            0);
                        IndexValue last = minOf(
                            floorDiv(IndexValue(nb, l, upper[i]) - 1 - start,
                                     dilation),
                            attrs->kernel[i] - 1);
                        count = count * maxOf(last - first + 1, 0);
                      }
                      Value taps = arith::SIToFPOp::create(
                          nb, l, accType,
                          arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                                     count.materialize()));
                      return SmallVector<Value>{
                          arith::DivFOp::create(nb, l, args[0], taps)};
                    })
                    .front();
    }
    average = convertTensor(rewriter, loc, average, elementType);
    rewriter.replaceOp(op, castTensor(rewriter, loc, average, resultType));
    return success();
  }
};

} // namespace

void populateAveragePoolLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerAveragePool>(patterns.getContext());
}

} // namespace odt::codegen
