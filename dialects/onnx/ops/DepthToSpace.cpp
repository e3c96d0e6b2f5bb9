//===- DepthToSpace.cpp - onnx.DepthToSpace and onnx.SpaceToDepth ---------===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {
namespace {

LogicalResult verifyBlocks(Operation *op, Value input, int64_t blocksize) {
  if (blocksize < 1)
    return emitNodeError(op) << "blocksize must be positive, not " << blocksize;
  return verifyRank(op, input, 4, "input");
}

} // namespace

LogicalResult DepthToSpaceOp::verify() {
  if (getMode() != "DCR" && getMode() != "CRD")
    return emitNodeError(*this)
           << "mode must be DCR or CRD, not '" << getMode() << "'";
  return verifyBlocks(*this, getInput(), getBlocksize());
}

LogicalResult DepthToSpaceOp::inferShapes(ShapeContext &context) {
  Shape shape = context.getShape(getInput());
  int64_t block = getBlocksize();
  std::optional<Dim> channels =
      context.divideExact(shape[1], Dim::size(block * block));
  std::optional<Dim> height = context.multiply(shape[2], Dim::size(block));
  std::optional<Dim> width = context.multiply(shape[3], Dim::size(block));
  if (!channels || !height || !width)
    return emitNodeError(*this)
           << "the channels " << context.symbolName(shape[1])
           << " must be a multiple of blocksize^2 = " << block * block;
  context.setShape(getOutput(), {shape[0], *channels, *height, *width},
                   ShapeContext::getElementType(getInput()));
  return success();
}

LogicalResult SpaceToDepthOp::verify() {
  return verifyBlocks(*this, getInput(), getBlocksize());
}

LogicalResult SpaceToDepthOp::inferShapes(ShapeContext &context) {
  Shape shape = context.getShape(getInput());
  int64_t block = getBlocksize();
  std::optional<Dim> channels =
      context.multiply(shape[1], Dim::size(block * block));
  std::optional<Dim> height = context.divideExact(shape[2], Dim::size(block));
  std::optional<Dim> width = context.divideExact(shape[3], Dim::size(block));
  if (!channels || !height || !width)
    return emitNodeError(*this) << "the height and width must be multiples "
                                   "of blocksize "
                                << block;
  context.setShape(getOutput(), {shape[0], *channels, *height, *width},
                   ShapeContext::getElementType(getInput()));
  return success();
}

} // namespace odt::onnx
