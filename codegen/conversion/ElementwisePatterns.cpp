//===- ElementwisePatterns.cpp - lowerings of the Elementwise family ------===//
//
// One line per op file of the family (elementwise math, activations,
// comparisons, logic, casts); shared pieces live in ElementwiseUtil.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

namespace odt::codegen {

void populateAbsLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateArithmeticLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateAndLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateCastLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateClipLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateCosLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDivLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDropoutLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateEluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateEqualLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateErfLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateExpLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGeluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGreaterLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateHardSigmoidLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateLeakyReluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateLessLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateLogLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateVariadicLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateNegLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateNotLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateOrLoweringPatterns(mlir::RewritePatternSet &patterns);
void populatePowLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReciprocalLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSigmoidLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSinLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateAtanLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSoftplusLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSqrtLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTanhLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateWhereLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateFloorLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateCeilLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateRoundLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSignLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateIsNaNLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateIsInfLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateHardSwishLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateMishLoweringPatterns(mlir::RewritePatternSet &patterns);
void populatePReluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSeluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateCeluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateThresholdedReluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateModLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateElementwiseLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateAbsLoweringPatterns(patterns);
  populateArithmeticLoweringPatterns(patterns);
  populateAndLoweringPatterns(patterns);
  populateCastLoweringPatterns(patterns);
  populateClipLoweringPatterns(patterns);
  populateCosLoweringPatterns(patterns);
  populateDivLoweringPatterns(patterns);
  populateDropoutLoweringPatterns(patterns);
  populateEluLoweringPatterns(patterns);
  populateEqualLoweringPatterns(patterns);
  populateErfLoweringPatterns(patterns);
  populateExpLoweringPatterns(patterns);
  populateGeluLoweringPatterns(patterns);
  populateGreaterLoweringPatterns(patterns);
  populateHardSigmoidLoweringPatterns(patterns);
  populateLeakyReluLoweringPatterns(patterns);
  populateLessLoweringPatterns(patterns);
  populateLogLoweringPatterns(patterns);
  populateVariadicLoweringPatterns(patterns);
  populateNegLoweringPatterns(patterns);
  populateNotLoweringPatterns(patterns);
  populateOrLoweringPatterns(patterns);
  populatePowLoweringPatterns(patterns);
  populateReciprocalLoweringPatterns(patterns);
  populateReluLoweringPatterns(patterns);
  populateSigmoidLoweringPatterns(patterns);
  populateSinLoweringPatterns(patterns);
  populateAtanLoweringPatterns(patterns);
  populateSoftplusLoweringPatterns(patterns);
  populateSqrtLoweringPatterns(patterns);
  populateTanhLoweringPatterns(patterns);
  populateWhereLoweringPatterns(patterns);
  populateFloorLoweringPatterns(patterns);
  populateCeilLoweringPatterns(patterns);
  populateRoundLoweringPatterns(patterns);
  populateSignLoweringPatterns(patterns);
  populateIsNaNLoweringPatterns(patterns);
  populateIsInfLoweringPatterns(patterns);
  populateHardSwishLoweringPatterns(patterns);
  populateMishLoweringPatterns(patterns);
  populatePReluLoweringPatterns(patterns);
  populateSeluLoweringPatterns(patterns);
  populateCeluLoweringPatterns(patterns);
  populateThresholdedReluLoweringPatterns(patterns);
  populateModLoweringPatterns(patterns);
}

} // namespace odt::codegen
