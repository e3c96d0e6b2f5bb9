//===- SoftmaxGrad.cpp - Softmax and LogSoftmax gradients -----------------===//
//
// onnx.ms.SoftmaxGrad, SoftmaxGrad_13, LogSoftmaxGrad, LogSoftmaxGrad_13:
// dY and the forward output have one shape, dX has it too. The pre-13 ops
// reduce over the dims [axis, rank) (the input coerced to 2-D), the _13 ops
// over the single dim axis.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

static LogicalResult verifySoftmaxGrad(Operation *op, Value dY, Value y,
                                       int64_t axis) {
  if (failed(verifySameElementType(op, dY, y, "dY and the forward output")))
    return failure();
  if (std::optional<int64_t> rank = getRank(y)) {
    // Rank 0 has no axis to normalize over.
    if (failed(normalizeAxis(op, axis, std::max<int64_t>(*rank, 1), "axis")))
      return failure();
    if (*rank == 0)
      return emitNodeError(op) << "the input must have rank >= 1";
  }
  return success();
}

#define ODT_SOFTMAX_GRAD(OP, OTHER)                                            \
  LogicalResult OP::verify() {                                                 \
    return verifySoftmaxGrad(*this, getDY(), get##OTHER(), getAxis());         \
  }                                                                            \
  LogicalResult OP::inferShapes(ShapeContext &context) {                       \
    return inferElementwiseGrad(context, *this, getDY(), get##OTHER(),         \
                                getDX(), "dY and the forward output");         \
  }

ODT_SOFTMAX_GRAD(SoftmaxGradOp, Y)
ODT_SOFTMAX_GRAD(SoftmaxGrad_13Op, Y)
ODT_SOFTMAX_GRAD(LogSoftmaxGradOp, X)
ODT_SOFTMAX_GRAD(LogSoftmaxGrad_13Op, X)

#undef ODT_SOFTMAX_GRAD

} // namespace odt::onnx
