//===- ShapePatterns.cpp - lowerings of the Shape family ----------------===//
//
// One line per op file of the family (shape and data movement).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/Common.h"

namespace odt::codegen {


void populateShapeLoweringPatterns(mlir::RewritePatternSet &patterns) {
  (void)patterns;
}

} // namespace odt::codegen
