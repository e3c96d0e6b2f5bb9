//===- Einsum.cpp - onnx.Einsum -------------------------------------------===//
//
// The equation is parsed against the inputs' ranks (ReductionHelpers); every
// loop's size comes from the input dims it indexes: equal for letters,
// numpy-broadcast for "..." dims.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

LogicalResult EinsumOp::verify() {
  if (getInputs().empty())
    return emitNodeError(*this) << "needs at least one input";
  SmallVector<int64_t> ranks;
  for (Value input : getInputs()) {
    if (failed(verifySameElementType(*this, getInputs().front(), input,
                                     "the inputs")))
      return failure();
    if (std::optional<int64_t> rank = getRank(input))
      ranks.push_back(*rank);
  }
  if (ranks.size() != getInputs().size())
    return success();
  std::string error;
  if (failed(parseEinsumEquation(getEquation(), ranks, error)))
    return emitNodeError(*this) << "equation '" << getEquation()
                                << "': " << error;
  return success();
}

LogicalResult EinsumOp::inferShapes(ShapeContext &context) {
  SmallVector<Shape> shapes;
  SmallVector<int64_t> ranks;
  for (Value input : getInputs()) {
    shapes.push_back(context.getShape(input));
    ranks.push_back(shapes.back().size());
  }
  std::string error;
  FailureOr<EinsumEquation> equation =
      parseEinsumEquation(getEquation(), ranks, error);
  if (failed(equation))
    return emitNodeError(*this) << "equation '" << getEquation()
                                << "': " << error;
  // Broadcast dims: numpy broadcasting of every input's "..." dims.
  Shape ellipsis(equation->numEllipsisDims, Dim::size(1));
  SmallVector<std::optional<Dim>> loops(equation->getNumLoops());
  for (auto [shape, dims] : llvm::zip(shapes, equation->inputs)) {
    Shape part;
    for (auto [dim, loop] : llvm::zip(shape, dims)) {
      if (loop < equation->numEllipsisDims) {
        part.push_back(dim);
        continue;
      }
      if (!loops[loop]) {
        loops[loop] = dim;
      } else if (failed(context.unify(
                     *loops[loop], dim, *this,
                     (Twine("dims labeled '") +
                      Twine(equation->loopLabels[loop]) + "' differ")
                         .str()))) {
        return failure();
      }
    }
    FailureOr<Shape> broadcast = context.broadcast(ellipsis, part, *this);
    if (failed(broadcast))
      return failure();
    ellipsis = *broadcast;
  }
  for (unsigned e = 0; e < equation->numEllipsisDims; ++e)
    loops[e] = ellipsis[e];
  Shape output;
  for (unsigned loop : equation->output)
    output.push_back(context.resolve(*loops[loop]));
  context.setShape(getOutput(), output,
                   ShapeContext::getElementType(getInputs().front()));
  return success();
}

} // namespace odt::onnx
