//===- BroadcastGradientArgs.cpp - onnx.ms.BroadcastGradientArgs ----------===//
//
// The reduction axes of a broadcast binary op's two inputs, computed at
// compile time from the shapes the inputs hold (see Training.td): odt's
// shapes fix them, since a symbolic dim never broadcasts.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

FailureOr<SmallVector<int64_t>>
BroadcastGradientArgsOp::getStaticAxes(unsigned index) {
  FailureOr<SmallVector<int64_t>> a = getShapeOperandStaticDims(getAShape());
  FailureOr<SmallVector<int64_t>> b = getShapeOperandStaticDims(getBShape());
  if (failed(a) || failed(b))
    return failure();
  SmallVector<int64_t> aAxes, bAxes;
  if (failed(computeBroadcastGradientArgs(*a, *b, aAxes, bAxes)))
    return failure();
  return index == 0 ? aAxes : bAxes;
}

LogicalResult BroadcastGradientArgsOp::verify() {
  if (failed(verifyRank(*this, getAShape(), 1, "a_shape")) ||
      failed(verifyRank(*this, getBShape(), 1, "b_shape")))
    return failure();
  FailureOr<SmallVector<int64_t>> a = getShapeOperandStaticDims(getAShape());
  FailureOr<SmallVector<int64_t>> b = getShapeOperandStaticDims(getBShape());
  SmallVector<int64_t> aAxes, bAxes;
  if (succeeded(a) && succeeded(b) &&
      failed(computeBroadcastGradientArgs(*a, *b, aAxes, bAxes)))
    return emitNodeError(*this) << "the shapes cannot broadcast";
  return success();
}

LogicalResult BroadcastGradientArgsOp::inferShapes(ShapeContext &context) {
  Type i64 = IntegerType::get(getContext(), 64);
  for (unsigned index = 0; index < 2; ++index) {
    FailureOr<SmallVector<int64_t>> axes = getStaticAxes(index);
    if (failed(axes))
      return emitNodeError(*this)
             << "the input shapes must be known at compile time (onnx.Shape "
                "of ranked values or constants)";
    context.setShape(getResult(index), {Dim::size(axes->size())}, i64);
  }
  return success();
}

} // namespace odt::onnx
