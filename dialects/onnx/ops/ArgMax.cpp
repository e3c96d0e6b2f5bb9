//===- ArgMax.cpp - onnx.ArgMax -------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

LogicalResult ArgMaxOp::verify() {
  if (failed(verifyFlag(*this, getKeepdims(), "keepdims")) ||
      failed(verifyFlag(*this, getSelectLastIndex(), "select_last_index")) ||
      failed(verifyAxis(*this, getData(), getAxis(), "data")))
    return failure();
  if (std::optional<int64_t> rank = getRank(getData()); rank && *rank == 0)
    return emitNodeError(*this) << "data must have rank >= 1";
  return success();
}

LogicalResult ArgMaxOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  int64_t axis = *normalizeAxis(getAxis(), data.size());
  context.setShape(getReduced(), reducedShape(data, {axis}, getKeepdims()),
                   Builder(getContext()).getI64Type());
  return success();
}

} // namespace odt::onnx
