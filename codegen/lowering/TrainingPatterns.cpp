//===- TrainingPatterns.cpp - lowerings of the Training family ----------------===//
//
// One line per op file of the family (com.microsoft training operators).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/Common.h"

namespace odt::codegen {

void populateInPlaceAccumulatorLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateOptimizerLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateTrainingLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateInPlaceAccumulatorLoweringPatterns(patterns);
  populateOptimizerLoweringPatterns(patterns);
}

} // namespace odt::codegen
