//===- OpHelpers.cpp - shared pieces of op verifiers and shapes -----------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace odt::onnx {

InFlightDiagnostic emitNodeError(Operation *op) {
  return op->emitError() << "node '" << getNodeName(op) << "' ("
                         << op->getName().getStringRef() << "): ";
}

std::optional<int64_t> getRank(Value value) {
  if (auto ranked = dyn_cast<RankedTensorType>(value.getType()))
    return ranked.getRank();
  return std::nullopt;
}

LogicalResult verifyRank(Operation *op, Value value, int64_t rank,
                         StringRef what) {
  std::optional<int64_t> actual = getRank(value);
  if (actual && *actual != rank)
    return emitNodeError(op) << what << " must have rank " << rank
                             << ", got rank " << *actual;
  return success();
}

LogicalResult verifySameElementType(Operation *op, Value a, Value b,
                                    StringRef what) {
  Type ta = getElementTypeOrSelf(a.getType());
  Type tb = getElementTypeOrSelf(b.getType());
  if (ta != tb)
    return emitNodeError(op) << what << " must have the same element type, got "
                             << ta << " and " << tb;
  return success();
}

LogicalResult inferSameShape(ShapeContext &context, Value source,
                             Value result) {
  context.setShape(result, context.getShape(source),
                   ShapeContext::getElementType(source));
  return success();
}

LogicalResult unifyShapes(ShapeContext &context, Operation *op, Value a,
                          Value b, StringRef what) {
  Shape sa = context.getShape(a), sb = context.getShape(b);
  if (sa.size() != sb.size())
    return emitNodeError(op) << what << ": rank " << sa.size() << " vs "
                             << sb.size();
  for (size_t i = 0; i < sa.size(); ++i)
    if (failed(context.unify(sa[i], sb[i], op, what)))
      return failure();
  return success();
}

} // namespace odt::onnx
