//===- Structure.cpp - gradient rules of data-movement ops ----------------===//
//
// Ops that only move data move the gradient back: reshapes reshape it to the
// input's shape (read at run time, so symbolic batches work), Transpose
// applies the inverse permutation, Slice and Gather scatter it with ORT's
// SliceGrad and GatherGrad, Concat slices it apart.
//
//===----------------------------------------------------------------------===//

#include "compiler/autodiff/rules/RuleSupport.h"

using namespace mlir;

namespace odt {
namespace {

Value reshapeLike(GradientBuilder &b, Value gradient, Value like) {
  return b.create("onnx.Reshape", {gradient, b.shapeOf(like)});
}

ODT_GRADIENT_RULE(Reshape) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Flatten) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Squeeze) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Unsqueeze) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Expand) {
  dx[0] = b.sumToShapeOf(dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Transpose) {
  int64_t rank = b.rank(op->getOperand(0));
  SmallVector<int64_t> perm;
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("perm"))
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  dx[0] = b.create("onnx.Transpose", {dy[0]}, {b.intsAttr("perm", inverse)});
  return success();
}

ODT_GRADIENT_RULE(Concat) {
  Value y = op->getResult(0);
  int64_t rank = b.rank(y);
  int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getValue().getSExtValue();
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    onnx::Dim size = b.shape(op->getOperand(i))[axis];
    if (!size.isStatic()) {
      b.emitError() << "no gradient rule for Concat along a dim of run-time "
                       "size";
      return failure();
    }
    if (b.needsGradient(i))
      dx[i] = b.create("onnx.Slice",
                       {dy[0], b.int64s({offset}),
                        b.int64s({offset + size.getSize()}), b.int64s({axis})});
    offset += size.getSize();
  }
  return success();
}

ODT_GRADIENT_RULE(Slice) {
  Value x = op->getOperand(0);
  dx[0] = b.create("onnx.ms.SliceGrad",
                   {dy[0], b.shapeOf(x), op->getOperand(1), op->getOperand(2),
                    op->getOperand(3), op->getOperand(4)});
  return success();
}

ODT_GRADIENT_RULE(Gather) {
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  dx[0] = b.create("onnx.ms.GatherGrad",
                   {b.shapeOf(op->getOperand(0)), op->getOperand(1), dy[0]},
                   {b.intAttr("axis", axis ? axis.getValue().getSExtValue()
                                           : 0)});
  return success();
}

} // namespace

void attachStructureGradients(MLIRContext *context) {
  ODT_ATTACH_RULE(Reshape);
  ODT_ATTACH_RULE(Flatten);
  ODT_ATTACH_RULE(Squeeze);
  ODT_ATTACH_RULE(Unsqueeze);
  ODT_ATTACH_RULE(Expand);
  ODT_ATTACH_RULE(Transpose);
  ODT_ATTACH_RULE(Concat);
  ODT_ATTACH_RULE(Slice);
  ODT_ATTACH_RULE(Gather);
}

} // namespace odt
