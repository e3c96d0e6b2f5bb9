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

void gatherKnownValues(
    ShapeContext &context, Value data, ArrayRef<int64_t> inDims, Value result,
    ArrayRef<int64_t> outDims,
    function_ref<void(ArrayRef<int64_t>, SmallVectorImpl<int64_t> &)> source) {
  std::optional<Values> input = context.getPartialValues(data);
  if (!input || llvm::is_contained(inDims, ShapedType::kDynamic) ||
      llvm::is_contained(outDims, ShapedType::kDynamic))
    return;
  int64_t count = 1;
  for (int64_t d : outDims)
    count *= d;
  SmallVector<int64_t> coordinate(outDims.size()), from;
  Values values;
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index;
    for (int64_t d = static_cast<int64_t>(outDims.size()) - 1; d >= 0; --d) {
      coordinate[d] = rest % outDims[d];
      rest /= outDims[d];
    }
    from.clear();
    source(coordinate, from);
    int64_t offset = 0;
    for (auto [position, size] : llvm::zip(from, inDims))
      offset = offset * size + position;
    values.push_back((*input)[offset]);
  }
  context.setValues(result, values);
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

std::optional<SmallVector<double>> getConstantNumbers(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto constant = dyn_cast<ConstantOp>(def)) {
    auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!elements || elements.getNumElements() > ShapeContext::kMaxValues)
      return std::nullopt;
    SmallVector<double> numbers;
    Type element = elements.getElementType();
    if (isa<FloatType>(element)) {
      for (const APFloat &v : elements.getValues<APFloat>())
        numbers.push_back(v.convertToDouble());
    } else if (auto integer = dyn_cast<IntegerType>(element)) {
      for (const APInt &v : elements.getValues<APInt>())
        numbers.push_back(integer.isUnsigned()
                              ? static_cast<double>(v.getZExtValue())
                              : static_cast<double>(v.getSExtValue()));
    } else {
      return std::nullopt;
    }
    return numbers;
  }
  if (isa<IdentityOp, CastOp>(def))
    return getConstantNumbers(def->getOperand(0));
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    SmallVector<double> numbers;
    for (Value input : concat.getInputs()) {
      std::optional<SmallVector<double>> part = getConstantNumbers(input);
      if (!part)
        return std::nullopt;
      numbers.append(*part);
    }
    return numbers;
  }
  return std::nullopt;
}

} // namespace odt::onnx
