//===- IsNaN.cpp - onnx.IsNaN ---------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult IsNaNOp::inferShapes(ShapeContext &context) {
  context.setShape(getY(), context.getShape(getX()),
                   IntegerType::get(getContext(), 1));
  return success();
}

} // namespace odt::onnx
