//===- Elementwise.cpp - shared shape logic of the Elementwise family -----===//

#include "dialects/onnx/ops/Elementwise.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace odt::onnx {

FailureOr<Shape> inferBroadcastShape(ShapeContext &context, Operation *op,
                                     ValueRange operands) {
  std::optional<Shape> result;
  for (Value operand : operands) {
    if (isNoValue(operand))
      continue;
    Shape shape = context.getShape(operand);
    if (!result) {
      result = shape;
      continue;
    }
    // Static dims that cannot meet are reported with both shapes; everything
    // else broadcasts or unifies.
    size_t rank = std::max(result->size(), shape.size());
    for (size_t i = 0; i < rank; ++i) {
      if (i >= result->size() || i >= shape.size())
        break;
      Dim l = context.resolve((*result)[result->size() - 1 - i]);
      Dim r = context.resolve(shape[shape.size() - 1 - i]);
      if (l.isStatic() && r.isStatic() && l.getSize() != r.getSize() &&
          l.getSize() != 1 && r.getSize() != 1)
        return emitNodeError(op)
               << "shapes " << formatShape(context, *result) << " and "
               << formatShape(context, shape)
               << " cannot broadcast (dim " << l.getSize() << " vs "
               << r.getSize() << ")";
    }
    FailureOr<Shape> merged = context.broadcast(*result, shape, op);
    if (failed(merged))
      return failure();
    result = *merged;
  }
  if (!result)
    return emitNodeError(op) << "needs at least one input";
  return *result;
}

LogicalResult inferBroadcastResult(ShapeContext &context, Operation *op,
                                   ValueRange operands, Value result,
                                   Type elementType) {
  FailureOr<Shape> shape = inferBroadcastShape(context, op, operands);
  if (failed(shape))
    return failure();
  context.setShape(result, *shape, elementType);
  return success();
}

LogicalResult verifySameElementTypes(Operation *op, ValueRange operands,
                                     StringRef what) {
  Type first;
  for (Value operand : operands) {
    if (isNoValue(operand))
      continue;
    Type type = getElementTypeOrSelf(operand.getType());
    if (!first) {
      first = type;
      continue;
    }
    if (type != first)
      return emitNodeError(op) << what
                               << " must have the same element type, got "
                               << first << " and " << type;
  }
  return success();
}

LogicalResult verifyScalarOperand(Operation *op, Value value, StringRef what) {
  if (isNoValue(value))
    return success();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return success();
  if (llvm::any_of(type.getShape(), [](int64_t dim) { return dim != 1; }))
    return emitNodeError(op) << what << " must be a scalar (one element), got "
                             << type;
  return success();
}

} // namespace odt::onnx
