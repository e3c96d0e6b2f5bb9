//===- ShapePatterns.cpp - lowerings of the Shape family ----------------===//
//
// One line per op file of the family (shape and data movement).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/Common.h"

namespace odt::codegen {

void populateConcatLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateExpandLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateFlattenLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGatherLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGatherElementsLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGatherNDLoweringPatterns(mlir::RewritePatternSet &patterns);
void populatePadLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReshapeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateScatterElementsLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateShapeOpLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSliceLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSplitLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateSqueezeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTileLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTransposeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTriluLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateUnsqueezeLoweringPatterns(mlir::RewritePatternSet &patterns);

void populateShapeLoweringPatterns(mlir::RewritePatternSet &patterns) {
  populateConcatLoweringPatterns(patterns);
  populateExpandLoweringPatterns(patterns);
  populateFlattenLoweringPatterns(patterns);
  populateGatherLoweringPatterns(patterns);
  populateGatherElementsLoweringPatterns(patterns);
  populateGatherNDLoweringPatterns(patterns);
  populatePadLoweringPatterns(patterns);
  populateReshapeLoweringPatterns(patterns);
  populateScatterElementsLoweringPatterns(patterns);
  populateShapeOpLoweringPatterns(patterns);
  populateSliceLoweringPatterns(patterns);
  populateSplitLoweringPatterns(patterns);
  populateSqueezeLoweringPatterns(patterns);
  populateTileLoweringPatterns(patterns);
  populateTransposeLoweringPatterns(patterns);
  populateTriluLoweringPatterns(patterns);
  populateUnsqueezeLoweringPatterns(patterns);
}

} // namespace odt::codegen
