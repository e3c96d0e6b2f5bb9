//===- ReduceMean.cpp - onnx.ReduceMean -> linalg -------------------------===//
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

void populateReduceMeanLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduceOp<onnx::ReduceMeanOp, ReduceKind::Mean>>(
      patterns.getContext());
}

} // namespace odt::codegen
