//===- LayerNormalization.cpp - onnx.LayerNormalization -------------------===//

#include "dialects/onnx/ops/ReductionHelpers.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace odt::onnx::reduction;

namespace odt::onnx {

/// The element type an ONNX TensorProto data type names, for stash_type.
static Type stashElementType(MLIRContext *context, int64_t stashType) {
  Builder b(context);
  switch (stashType) {
  case 1: return b.getF32Type();
  case 10: return b.getF16Type();
  case 11: return b.getF64Type();
  case 16: return b.getBF16Type();
  default: return nullptr;
  }
}

/// Scale and B broadcast to X's normalized dims (numpy-style, aligned to
/// the trailing dims).
static LogicalResult verifyParameter(Operation *op, Value x, Value parameter,
                                     StringRef what) {
  if (failed(verifySameElementType(op, x, parameter,
                                   (Twine("X and ") + what).str())))
    return failure();
  std::optional<int64_t> rank = getRank(x), parameterRank = getRank(parameter);
  if (rank && parameterRank && *parameterRank > *rank)
    return emitNodeError(op) << what << " must not have a higher rank than X";
  return success();
}

static LogicalResult unifyParameter(ShapeContext &context, Operation *op,
                                    const Shape &x, int64_t axis,
                                    Value parameter, StringRef what) {
  Shape p = context.getShape(parameter);
  if (p.size() > x.size() - axis)
    return emitNodeError(op) << what << " has rank " << p.size()
                             << ", more than the " << x.size() - axis
                             << " normalized dims of X";
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].isStatic() && p[i].getSize() == 1)
      continue;
    if (failed(context.unify(p[i], x[x.size() - p.size() + i], op,
                             (Twine(what) + " does not broadcast to the "
                                            "normalized dims of X")
                                 .str())))
      return failure();
  }
  return success();
}

LogicalResult LayerNormalizationOp::verify() {
  if (failed(verifyAxis(*this, getX(), getAxis(), "X")) ||
      failed(verifyParameter(*this, getX(), getScale(), "Scale")))
    return failure();
  if (!isNoValue(getB()) &&
      failed(verifyParameter(*this, getX(), getB(), "B")))
    return failure();
  if (!stashElementType(getContext(), getStashType()))
    return emitNodeError(*this)
           << "stash_type must be 1 (float), 10 (float16), 11 (double) or "
              "16 (bfloat16), got "
           << getStashType();
  return success();
}

LogicalResult LayerNormalizationOp::inferShapes(ShapeContext &context) {
  Shape x = context.getShape(getX());
  int64_t axis = *normalizeAxis(getAxis(), x.size());
  if (failed(unifyParameter(context, *this, x, axis, getScale(), "Scale")) ||
      (!isNoValue(getB()) &&
       failed(unifyParameter(context, *this, x, axis, getB(), "B"))))
    return failure();
  x = context.getShape(getX());
  Shape stats(x.begin(), x.begin() + axis);
  stats.append(x.size() - axis, Dim::size(1));
  Type stashType = stashElementType(getContext(), getStashType());
  context.setShape(getY(), x, ShapeContext::getElementType(getX()));
  context.setShape(getMean(), stats, stashType);
  context.setShape(getInvStdDev(), stats, stashType);
  return success();
}

} // namespace odt::onnx
