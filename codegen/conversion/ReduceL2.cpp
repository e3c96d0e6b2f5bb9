//===- ReduceL2.cpp - onnx.ReduceL2 -> linalg -----------------------------===//
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

void populateReduceL2LoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduceOp<onnx::ReduceL2Op, ReduceKind::L2>>(
      patterns.getContext());
}

} // namespace odt::codegen
