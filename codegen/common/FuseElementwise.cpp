//===- FuseElementwise.cpp - elementwise fusion that spares products ------===//
//
// The same patterns as upstream's linalg-fuse-elementwise-ops, with a control
// function that refuses to fuse into a reduction a producer whose value the
// reduction would read more than once. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "codegen/common/Passes.h.inc"

namespace {

bool hasSingleUseProducer(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

bool hasReductions(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Reshapes are folded into elementwise ops, not into reductions: a matrix
/// product over collapsed operands (a convolution's filter and columns)
/// would become a 7-loop generic that no longer reads as a product.
bool shouldFoldReshape(OpOperand *fused) {
  return hasSingleUseProducer(fused) && !hasReductions(fused->getOwner()) &&
         !hasReductions(fused->get().getDefiningOp());
}

/// A producer that only moves values (a transpose, a broadcast, a copy):
/// fused anywhere, it costs no arithmetic, and it saves writing and
/// re-reading the moved tensor.
bool isDataMovement(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumReductionLoops() != 0)
    return false;
  Block &body = generic.getRegion().front();
  return body.getOperations().size() == 1 &&
         body.getTerminator()->getOperand(0) == body.getArgument(0);
}

bool shouldFuse(OpOperand *fused) {
  if (!hasSingleUseProducer(fused))
    return false;
  if (isDataMovement(fused->get().getDefiningOp()))
    return true;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer || consumer.getNumReductionLoops() == 0)
    return true;
  // Every loop of the consumer must move the operand: otherwise the fused
  // body recomputes the producer for each value of the loops it ignores.
  AffineMap map = consumer.getMatchingIndexingMap(fused);
  for (unsigned dim = 0; dim < map.getNumDims(); ++dim)
    if (!map.isFunctionOfDim(dim))
      return false;
  return true;
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      shouldFoldReshape);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 hasSingleUseProducer);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal())))
      return signalPassFailure();
  }
};

} // namespace
} // namespace odt
