//===- TrainingPatterns.cpp - lowerings of the Training family ----------------===//
//
// One line per op file of the family (com.microsoft training operators,
// ops/Training.td).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

namespace odt::codegen {

void populateActivationGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateBatchNormInternalLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateBroadcastGradientArgsLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateConcatTrainingLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateConvGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDivGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDropoutGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateFusedMatMulLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGatherGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateInPlaceAccumulatorLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateInPlaceAccumulatorV1LoweringPatterns(mlir::RewritePatternSet &patterns);
void populateInplaceClipGradNormLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateLayerNormalizationGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateOptimizerLoweringPatterns(mlir::RewritePatternSet &patterns);
void populatePoolGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReduceSumTrainingLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateScaleLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSliceGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSoftmaxCrossEntropyLossInternalLoweringPatterns(
    mlir::RewritePatternSet &patterns);
void populateSoftmaxGradLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateTrainingLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateActivationGradLoweringPatterns(patterns);
  populateBatchNormInternalLoweringPatterns(patterns);
  populateBroadcastGradientArgsLoweringPatterns(patterns);
  populateConcatTrainingLoweringPatterns(patterns);
  populateConvGradLoweringPatterns(patterns);
  populateDivGradLoweringPatterns(patterns);
  populateDropoutGradLoweringPatterns(patterns);
  populateFusedMatMulLoweringPatterns(patterns);
  populateGatherGradLoweringPatterns(patterns);
  populateInPlaceAccumulatorLoweringPatterns(patterns);
  populateInPlaceAccumulatorV1LoweringPatterns(patterns);
  populateInplaceClipGradNormLoweringPatterns(patterns);
  populateLayerNormalizationGradLoweringPatterns(patterns);
  populateOptimizerLoweringPatterns(patterns);
  populatePoolGradLoweringPatterns(patterns);
  populateReduceSumTrainingLoweringPatterns(patterns);
  populateScaleLoweringPatterns(patterns);
  populateSliceGradLoweringPatterns(patterns);
  populateSoftmaxCrossEntropyLossInternalLoweringPatterns(patterns);
  populateSoftmaxGradLoweringPatterns(patterns);
}

} // namespace odt::codegen
