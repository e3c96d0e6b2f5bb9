//===- Concat.cpp - onnx.Concat -------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitNodeError(*this) << "needs at least one input";
  std::optional<int64_t> rank;
  for (Value input : getInputs()) {
    if (failed(
            verifySameElementType(*this, getInputs().front(), input, "inputs")))
      return failure();
    std::optional<int64_t> r = getRank(input);
    if (!r)
      continue;
    if (rank && *rank != *r)
      return emitNodeError(*this) << "inputs must have the same rank, got "
                                  << *rank << " and " << *r;
    rank = r;
  }
  if (rank && !normalizeAxis(int64_t(getAxis()), *rank))
    return emitNodeError(*this)
           << "axis " << int64_t(getAxis()) << " is outside [" << -*rank << ", "
           << *rank - 1 << "]";
  return success();
}

/// The known values of a Concat of small integer tensors (shape
/// computations): outer blocks of each input in turn (static shapes only).
void propagateConcatValues(ShapeContext &context, ValueRange inputs,
                           int64_t axis, Value concatResult) {
  Shape result = context.getShape(concatResult);
  int64_t rank = result.size();
  SmallVector<int64_t> resultDims = context.toStaticDims(result);
  if (llvm::any_of(resultDims, ShapedType::isDynamic))
    return;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= resultDims[d];
  Values values;
  SmallVector<std::optional<Values>> inputValues;
  SmallVector<int64_t> chunks;
  for (Value input : inputs) {
    SmallVector<int64_t> dims = context.toStaticDims(context.getShape(input));
    int64_t chunk = 1;
    for (int64_t d = axis; d < rank; ++d)
      chunk *= dims[d];
    if (outer * chunk > ShapeContext::kMaxValues)
      return;
    chunks.push_back(chunk);
    inputValues.push_back(context.getPartialValues(input));
  }
  for (int64_t o = 0; o < outer; ++o)
    for (auto [i, chunk] : llvm::enumerate(chunks))
      for (int64_t e = 0; e < chunk; ++e)
        values.push_back(inputValues[i] ? (*inputValues[i])[o * chunk + e]
                                        : std::nullopt);
  context.setValues(concatResult, values);
}

LogicalResult ConcatOp::inferShapes(ShapeContext &context) {
  Shape first = context.getShape(getInputs().front());
  int64_t rank = first.size();
  int64_t axis = *normalizeAxis(int64_t(getAxis()), rank);
  Shape result = first;
  std::optional<Dim> sum = Dim::size(0);
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    Shape shape = context.getShape(input);
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis &&
          failed(context.unify(result[d], shape[d], *this,
                               "inputs differ outside the concatenation axis")))
        return failure();
    if (sum)
      sum = context.add(*sum, shape[axis]);
  }
  result = context.resolve(result);
  result[axis] = sum ? *sum : context.newResultSymbol(*this, axis);
  context.setShape(getConcatResult(), result,
                   ShapeContext::getElementType(getInputs().front()));

  propagateConcatValues(context, getInputs(), axis, getConcatResult());
  return success();
}

} // namespace odt::onnx
