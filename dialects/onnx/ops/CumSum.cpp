//===- CumSum.cpp - onnx.CumSum -------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

FailureOr<int64_t> CumSumOp::getConstantAxis() {
  std::optional<int64_t> rank = getRank(getX());
  DenseIntElementsAttr values;
  if (!rank || !matchPattern(getAxis(), m_Constant(&values)) ||
      values.getNumElements() != 1)
    return failure();
  std::optional<int64_t> axis =
      normalizeAxis((*values.begin()).getSExtValue(), *rank);
  if (!axis)
    return failure();
  return *axis;
}

LogicalResult CumSumOp::verify() {
  if (failed(verifyFlag(*this, getExclusive(), "exclusive")) ||
      failed(verifyFlag(*this, getReverse(), "reverse")))
    return failure();
  if (std::optional<int64_t> rank = getRank(getX()); rank && *rank == 0)
    return emitNodeError(*this) << "x must have rank >= 1";
  if (auto type = dyn_cast<RankedTensorType>(getAxis().getType());
      type && (type.getRank() > 1 ||
               (type.getRank() == 1 && !type.isDynamicDim(0) &&
                type.getDimSize(0) != 1)))
    return emitNodeError(*this) << "axis must be a scalar, got " << type;
  DenseIntElementsAttr values;
  if (getRank(getX()) && matchPattern(getAxis(), m_Constant(&values)) &&
      failed(getConstantAxis()))
    return emitNodeError(*this) << "axis must lie within the rank of x ("
                                << *getRank(getX()) << ")";
  return success();
}

LogicalResult CumSumOp::inferShapes(ShapeContext &context) {
  if (failed(getConstantAxis()))
    return emitNodeError(*this)
           << "axis must be a constant (computed axes are not supported)";
  return inferSameShape(context, getX(), getY());
}

} // namespace odt::onnx
