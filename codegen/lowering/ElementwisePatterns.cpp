//===- ElementwisePatterns.cpp - lowerings of the Elementwise family ----------------===//
//
// One line per op file of the family (elementwise math, activations, comparisons, logic, casts).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/Common.h"

namespace odt::codegen {

void populateReluLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateElementwiseLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateReluLoweringPatterns(patterns);
}

} // namespace odt::codegen
