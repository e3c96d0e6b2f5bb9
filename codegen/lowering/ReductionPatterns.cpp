//===- ReductionPatterns.cpp - lowerings of the Reduction family ----------------===//
//
// One line per op file of the family (reductions, normalizations, softmax and losses).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/Common.h"

namespace odt::codegen {

void populateReduceSumLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSoftmaxCrossEntropyLossLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateReductionLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateReduceSumLoweringPatterns(patterns);
  populateSoftmaxCrossEntropyLossLoweringPatterns(patterns);
}

} // namespace odt::codegen
