//===- ReductionPatterns.cpp - lowerings of the Reduction family ----------===//
//
// One line per op file of the family (reductions, normalizations, softmax and
// losses).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

namespace odt::codegen {

void populateReduceSumLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceMeanLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceMaxLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceMinLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceL2LoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceProdLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceL1LoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceSumSquareLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceLogSumLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceLogSumExpLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateArgMaxLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTopKLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateCumSumLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSoftmaxLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateLayerNormalizationLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateBatchNormalizationLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSoftmaxCrossEntropyLossLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateNegativeLogLikelihoodLossLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateEinsumLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateReductionLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateReduceSumLoweringPatterns(patterns);
  populateReduceMeanLoweringPatterns(patterns);
  populateReduceMaxLoweringPatterns(patterns);
  populateReduceMinLoweringPatterns(patterns);
  populateReduceL2LoweringPatterns(patterns);
  populateReduceProdLoweringPatterns(patterns);
  populateReduceL1LoweringPatterns(patterns);
  populateReduceSumSquareLoweringPatterns(patterns);
  populateReduceLogSumLoweringPatterns(patterns);
  populateReduceLogSumExpLoweringPatterns(patterns);
  populateArgMaxLoweringPatterns(patterns);
  populateTopKLoweringPatterns(patterns);
  populateCumSumLoweringPatterns(patterns);
  populateSoftmaxLoweringPatterns(patterns);
  populateLayerNormalizationLoweringPatterns(patterns);
  populateBatchNormalizationLoweringPatterns(patterns);
  populateSoftmaxCrossEntropyLossLoweringPatterns(patterns);
  populateNegativeLogLikelihoodLossLoweringPatterns(patterns);
  populateEinsumLoweringPatterns(patterns);
}

} // namespace odt::codegen
