//===- ReduceProd.cpp - onnx.ReduceProd -> linalg -------------------------===//
//
// One linalg.generic reducing the constant axes (ReductionUtil's
// lowerReduce); keepdims = 1 re-inserts the unit dims with
// tensor.expand_shape.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {

void populateReduceProdLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduceOp<onnx::ReduceProdOp, ReduceKind::Prod>>(
      patterns.getContext());
}

} // namespace odt::codegen
