//===- ReduceSumSquare.cpp - onnx.ReduceSumSquare -> linalg ---------------===//
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

void populateReduceSumSquareLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduceOp<onnx::ReduceSumSquareOp, ReduceKind::SumSquare>>(
      patterns.getContext());
}

} // namespace odt::codegen
