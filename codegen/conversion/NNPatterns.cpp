//===- NNPatterns.cpp - lowerings of the NN family ----------------===//
//
// One line per op file of the family (matrix products, convolutions and pooling).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

namespace odt::codegen {

void populateGemmLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateMatMulLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateRecurrentLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateConvLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateConvTransposeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateMaxPoolLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateAveragePoolLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGlobalAveragePoolLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateNNLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateGemmLoweringPatterns(patterns);
  populateMatMulLoweringPatterns(patterns);
  populateConvLoweringPatterns(patterns);
  populateRecurrentLoweringPatterns(patterns);
  populateConvTransposeLoweringPatterns(patterns);
  populateMaxPoolLoweringPatterns(patterns);
  populateAveragePoolLoweringPatterns(patterns);
  populateGlobalAveragePoolLoweringPatterns(patterns);
}

} // namespace odt::codegen
