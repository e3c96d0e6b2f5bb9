//===- Conv.cpp - onnx.Conv -> linalg -------------------------------------===//
//
// Y = conv(pad(X), W) + B: X is zero-padded with tensor.pad (pads from the
// shared window formulas, computed at run time for dynamic spatial dims),
// the convolution accumulates into B broadcast to [N, M, out...] (or zeros)
// with linalg's named NC* convolutions where one fits (plain, depthwise,
// grouped 2-D) and a linalg.generic otherwise. f16/bf16 accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/NNUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerConv : OpConversionPattern<onnx::ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
    if (!resultType || !xType || !wType)
      return rewriter.notifyMatchFailure(op, "operands must be ranked");
    int64_t spatialRank = xType.getRank() - 2;
    FailureOr<SmallVector<int64_t>> kernel = onnx::readKernelShape(
        op, spatialRank, wType.getShape().drop_front(2));
    if (failed(kernel))
      return failure();
    FailureOr<onnx::WindowAttrs> attrs = onnx::readWindowAttrs(op, *kernel);
    if (failed(attrs))
      return failure();

    Value x = adaptor.getX(), w = adaptor.getW();
    Type elementType = xType.getElementType();
    Type accType = getComputeType(elementType);
    SmallVector<IndexValue> xSizes = getIndexSizes(rewriter, loc, x);
    IndexValue zero = IndexValue::constant(rewriter, loc, 0);
    SmallVector<OpFoldResult> low(2, zero.get()), high(2, zero.get());
    SmallVector<OpFoldResult> outSizes = {
        xSizes[0].get(), IndexValue::dim(rewriter, loc, w, 0).get()};
    for (int64_t i = 0; i < spatialRank; ++i) {
      onnx::AxisWindow<IndexValue> window =
          onnx::forwardWindow(*attrs, i, xSizes[2 + i]);
      low.push_back(window.padBegin.get());
      high.push_back(window.padEnd.get());
      outSizes.push_back(maxOf(window.out, 0).get());
    }
    Value padded = padTensor(rewriter, loc, x, low, high,
                             createScalar(rewriter, loc, elementType, 0.0));
    Value bias = onnx::isNoValue(adaptor.getB()) ? Value() : adaptor.getB();
    Value init = createBiasInit(rewriter, loc, bias, outSizes, accType);
    Value result =
        buildConvolution(rewriter, loc, padded, w, init, attrs->strides,
                         attrs->dilations, op.getGroup());
    result = convertTensor(rewriter, loc, result, elementType);
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateConvLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConv>(patterns.getContext());
}

} // namespace odt::codegen
