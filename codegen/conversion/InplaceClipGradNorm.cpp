//===- InplaceClipGradNorm.cpp - onnx.ms.InplaceClipGradNorm -> linalg ----===//
//
// ORT's kernel: norm = sqrt(sum over every gradient of g^2), accumulated in
// the gradients' type; c = min(max_norm / (norm + 1e-6), 1); every gradient
// is multiplied by c (also when c is 1). One reduction per gradient into a
// shared scalar, then one elementwise pass per gradient.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/TrainingUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerInplaceClipGradNorm
    : OpConversionPattern<onnx::InplaceClipGradNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::InplaceClipGradNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange gradients = adaptor.getGradients();
    if (gradients.empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    Type type = getElementTypeOrSelf(gradients.front().getType());
    Value total = createScalar(rewriter, loc, type, 0.0);
    for (Value gradient : gradients) {
      int64_t rank = cast<RankedTensorType>(gradient.getType()).getRank();
      SmallVector<int64_t> all;
      for (int64_t i = 0; i < rank; ++i)
        all.push_back(i);
      Value sum = sumOver(rewriter, loc, getSizes(rewriter, loc, gradient), all,
                          {gradient}, {identityMap(rewriter.getContext(), rank)},
                          {type},
                          [](OpBuilder &b, Location l, ValueRange args) {
                            return SmallVector<Value>{
                                arith::MulFOp::create(b, l, args[0], args[0])};
                          })
                      .front();
      total = arith::AddFOp::create(rewriter, loc, total,
                                    extractScalar(rewriter, loc, sum));
    }
    Value norm = math::SqrtOp::create(rewriter, loc, total);
    Value maxNorm = createScalar(rewriter, loc, type,
                                 op.getMaxNorm().convertToDouble());
    Value epsilon = createScalar(rewriter, loc, type, 1e-6);
    Value coefficient = arith::DivFOp::create(
        rewriter, loc, maxNorm, arith::AddFOp::create(rewriter, loc, norm, epsilon));
    coefficient = arith::MinimumFOp::create(rewriter, loc, coefficient,
                                            createScalar(rewriter, loc, type, 1.0));
    SmallVector<Value> results;
    for (auto [gradient, clipped] : llvm::zip(gradients, op.getClippedGradients())) {
      auto resultType = cast<RankedTensorType>(clipped.getType());
      Value init = emptyLike(rewriter, loc, resultType,
                             getSizes(rewriter, loc, gradient));
      Value scaled =
          buildElementwise(rewriter, loc, {gradient}, {init},
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             return SmallVector<Value>{
                                 arith::MulFOp::create(b, l, args[0], coefficient)};
                           })
              .front();
      results.push_back(castTensor(rewriter, loc, scaled, resultType));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateInplaceClipGradNormLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerInplaceClipGradNorm>(patterns.getContext());
}

} // namespace odt::codegen
