//===- NNPatterns.cpp - lowerings of the NN family ----------------===//
//
// One line per op file of the family (matrix products, convolutions and pooling).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/Common.h"

namespace odt::codegen {

void populateGemmLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateNNLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateGemmLoweringPatterns(patterns);
}

} // namespace odt::codegen
