//===- ConcatTraining.cpp - onnx.ms.ConcatTraining, SplitTraining ---------===//
//
// ConcatTraining concatenates along axis and returns each input's length
// there; SplitTraining (its gradient) splits by such lengths, which are
// known at compile time when they come from a ConcatTraining (its inputs'
// dims), a constant, or are absent (equal parts).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ConcatTrainingOp::verify() {
  if (getInputs().empty())
    return emitNodeError(*this) << "needs at least one input";
  std::optional<int64_t> rank = getRank(getInputs().front());
  for (Value input : getInputs()) {
    if (failed(verifySameElementType(*this, getInputs().front(), input,
                                     "the inputs")))
      return failure();
    if (rank && failed(verifyRank(*this, input, *rank, "every input")))
      return failure();
  }
  if (rank && failed(normalizeAxis(*this, getAxis(), *rank, "axis")))
    return failure();
  return success();
}

LogicalResult ConcatTrainingOp::inferShapes(ShapeContext &context) {
  Shape result = context.getShape(getInputs().front());
  int64_t rank = result.size();
  int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
  int64_t total = 0;
  bool allStatic = true;
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    Shape shape = context.getShape(input);
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis)
        continue;
      if (failed(context.unify(shape[i], result[i], *this,
                               "the inputs must agree off the axis")))
        return failure();
    }
    if (shape[axis].isStatic())
      total += shape[axis].getSize();
    else
      allStatic = false;
  }
  if (getInputs().size() == 1)
    ; // the axis dim is the input's
  else if (allStatic)
    result[axis] = Dim::size(total);
  else
    result[axis] = freshDim(context, *this, "concat_result", axis);
  context.setShape(getConcatResult(), context.resolve(result),
                   ShapeContext::getElementType(getInputs().front()));
  context.setShape(getPerInputLength(), {Dim::size(getInputs().size())},
                   IntegerType::get(getContext(), 64));
  // ORT's generator turns the Concat of a Reshape's target shape into
  // ConcatTraining: its values must flow like Concat's.
  propagateConcatValues(context, getInputs(), axis, getConcatResult());
  return success();
}

/// The split lengths, as dims: from a ConcatTraining's inputs, a constant,
/// or equal parts of `total` when the split tensor is empty.
static std::optional<Shape> splitLengths(ShapeContext &context,
                                         SplitTrainingOp op, int64_t axis,
                                         Dim total) {
  Value split = op.getSplit();
  unsigned parts = op.getNumResults();
  if (auto concat = split.getDefiningOp<ConcatTrainingOp>()) {
    Shape lengths;
    for (Value input : concat.getInputs())
      lengths.push_back(context.getShape(input)[axis]);
    return lengths;
  }
  DenseIntElementsAttr values;
  if (!matchPattern(split, m_Constant(&values)))
    return std::nullopt;
  Shape lengths;
  for (APInt value : values)
    lengths.push_back(Dim::size(value.getSExtValue()));
  if (!lengths.empty())
    return lengths;
  if (!total.isStatic())
    return std::nullopt;
  // ORT: the first (total % parts) outputs get one more element.
  int64_t chunk = total.getSize() / parts, left = total.getSize() % parts;
  for (unsigned i = 0; i < parts; ++i)
    lengths.push_back(Dim::size(chunk + (i < left ? 1 : 0)));
  return lengths;
}

LogicalResult SplitTrainingOp::verify() {
  if (getNumResults() == 0)
    return emitNodeError(*this) << "needs at least one output";
  if (failed(verifyRank(*this, getSplit(), 1, "split")))
    return failure();
  if (std::optional<int64_t> rank = getRank(getInput()))
    if (failed(normalizeAxis(*this, getAxis(), *rank, "axis")))
      return failure();
  return success();
}

LogicalResult SplitTrainingOp::inferShapes(ShapeContext &context) {
  Shape input = context.getShape(getInput());
  int64_t rank = input.size();
  int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
  std::optional<Shape> lengths =
      splitLengths(context, *this, axis, input[axis]);
  if (lengths && lengths->size() != getNumResults())
    return emitNodeError(*this)
           << "split has " << lengths->size() << " lengths for "
           << getNumResults() << " outputs";
  int64_t total = 0;
  bool allStatic = lengths.has_value();
  for (unsigned i = 0; i < getNumResults(); ++i) {
    Shape shape = input;
    shape[axis] =
        lengths ? (*lengths)[i]
                : freshDim(context, *this, "output" + std::to_string(i), axis);
    if (shape[axis].isStatic())
      total += shape[axis].getSize();
    else
      allStatic = false;
    context.setShape(getResult(i), shape,
                     ShapeContext::getElementType(getInput()));
  }
  if (allStatic && failed(context.unify(input[axis], Dim::size(total), *this,
                                        "the split lengths must add up to the "
                                        "input's dim")))
    return failure();
  return success();
}

} // namespace odt::onnx
