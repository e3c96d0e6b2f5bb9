//===- Tile.cpp - onnx.Tile -----------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult TileOp::verify() {
  if (failed(verifyRank(*this, getRepeats(), 1, "repeats")))
    return failure();
  DenseIntElementsAttr repeats;
  if (!matchPattern(getRepeats(), m_Constant(&repeats)))
    return success();
  std::optional<int64_t> rank = getRank(getInput());
  if (rank && repeats.getNumElements() != *rank)
    return emitNodeError(*this) << "repeats has " << repeats.getNumElements()
                                << " entries, input has rank " << *rank;
  for (const APInt &repeat : repeats.getValues<APInt>())
    if (repeat.isNegative())
      return emitNodeError(*this) << "repeats must be >= 0";
  return success();
}

LogicalResult TileOp::inferShapes(ShapeContext &context) {
  Shape input = context.getShape(getInput());
  Dim length = context.getShape(getRepeats())[0];
  if (failed(context.unify(length, Dim::size(input.size()), *this,
                           "repeats must have one entry per input dim")))
    return failure();
  Values repeats = context.getPartialValues(getRepeats())
                       .value_or(Values(input.size(), std::nullopt));
  Shape result;
  for (auto [d, dim] : llvm::enumerate(input)) {
    std::optional<Dim> repeat = repeats[d];
    if (repeat && repeat->getCoefficient() < 0)
      return emitNodeError(*this) << "repeats must be >= 0";
    std::optional<Dim> size;
    if (repeat)
      size = context.multiply(dim, *repeat);
    result.push_back(size ? *size : context.newResultSymbol(*this, d));
  }
  context.setShape(getOutput(), result,
                   ShapeContext::getElementType(getInput()));
  return success();
}

} // namespace odt::onnx
