//===- InplaceClipGradNorm.cpp - onnx.ms.InplaceClipGradNorm --------------===//
//
// Over a resolved sequence of gradients: each result has its gradient's
// shape. Only the Frobenius norm ("fro") exists, as in ORT.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult InplaceClipGradNormOp::verify() {
  if (getNormType() != "fro")
    return emitNodeError(*this) << "norm_type must be 'fro', got '"
                                << getNormType() << "'";
  if (getNumOperands() != getNumResults())
    return emitNodeError(*this) << "expected one clipped gradient per "
                                   "gradient, got "
                                << getNumResults() << " for "
                                << getNumOperands();
  for (Value gradient : getGradients())
    if (failed(verifySameElementType(*this, getGradients().front(), gradient,
                                     "the gradients")))
      return failure();
  return success();
}

LogicalResult InplaceClipGradNormOp::inferShapes(ShapeContext &context) {
  for (auto [gradient, clipped] :
       llvm::zip(getGradients(), getClippedGradients()))
    (void)inferSameShape(context, gradient, clipped);
  return success();
}

} // namespace odt::onnx
