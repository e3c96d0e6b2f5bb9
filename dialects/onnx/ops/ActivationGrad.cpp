//===- ActivationGrad.cpp - elementwise activation gradients --------------===//
//
// onnx.ms.SigmoidGrad, TanhGrad, LeakyReluGrad (from the forward output Y),
// GeluGrad and FastGeluGrad (from the forward input X): dX has the shape of
// dY and of the second operand.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

#define ODT_ELEMENTWISE_GRAD(OP, OTHER, NAMES)                                 \
  LogicalResult OP::verify() {                                                 \
    return verifyElementwiseGrad(*this, getDY(), get##OTHER(), NAMES);         \
  }                                                                            \
  LogicalResult OP::inferShapes(ShapeContext &context) {                       \
    return inferElementwiseGrad(context, *this, getDY(), get##OTHER(),         \
                                getDX(), NAMES);                               \
  }

ODT_ELEMENTWISE_GRAD(SigmoidGradOp, Y, "dY and Y")
ODT_ELEMENTWISE_GRAD(TanhGradOp, Y, "dY and Y")
ODT_ELEMENTWISE_GRAD(LeakyReluGradOp, Y, "dY and Y")
ODT_ELEMENTWISE_GRAD(GeluGradOp, X, "dY and X")
ODT_ELEMENTWISE_GRAD(FastGeluGradOp, X, "dY and X")

#undef ODT_ELEMENTWISE_GRAD

} // namespace odt::onnx
