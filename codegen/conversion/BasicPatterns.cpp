//===- BasicPatterns.cpp - lowerings of the Basic family ----------------===//
//
// One line per op file of the family (values).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

namespace odt::codegen {

void populateConstantLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateConstantOfShapeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateRangeLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateBasicLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateConstantLoweringPatterns(patterns);
  populateConstantOfShapeLoweringPatterns(patterns);
  populateRangeLoweringPatterns(patterns);
}

} // namespace odt::codegen
