//===- LayerNormalizationGrad.cpp - layer and RMS normalization -----------===//
//
// onnx.ms.LayerNormalizationGrad, onnx.SimplifiedLayerNormalization and
// onnx.ms.SimplifiedLayerNormalizationGrad. X has dims [d0..d(axis-1)] (the
// rows) and [d(axis)..] (the normalized dims); scale has the normalized
// dims; the per-row statistics (mean, inv_std_dev, inv_std_var) have the
// row dims, with or without trailing 1s.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

/// Checks the scale's rank and the normalized axis against X.
static LogicalResult verifyNormalization(Operation *op, Value x, Value scale,
                                         int64_t axis) {
  if (failed(verifySameElementType(op, x, scale, "X and scale")))
    return failure();
  std::optional<int64_t> rank = getRank(x);
  if (!rank)
    return success();
  FailureOr<int64_t> normalized = normalizeAxis(op, axis, *rank, "axis");
  if (failed(normalized))
    return failure();
  return verifyRank(op, scale, *rank - *normalized, "scale");
}

/// A per-row statistic has rank `axis` or X's rank (trailing 1s).
static LogicalResult verifyRowStatistic(Operation *op, Value x, Value stat,
                                        int64_t axis, StringRef what) {
  std::optional<int64_t> rank = getRank(x), statRank = getRank(stat);
  if (!rank || !statRank)
    return success();
  int64_t normalized = axis < 0 ? axis + *rank : axis;
  if (*statRank != normalized && *statRank != *rank)
    return emitNodeError(op) << what << " must have rank " << normalized
                             << " or " << *rank << ", got " << *statRank;
  return success();
}

/// Unifies X with scale (normalized dims) and a row statistic (row dims,
/// trailing 1s).
static LogicalResult unifyNormalization(ShapeContext &context, Operation *op,
                                        Value x, Value scale,
                                        ArrayRef<Value> stats, int64_t axis) {
  Shape xs = context.getShape(x), ss = context.getShape(scale);
  int64_t rank = xs.size();
  int64_t normalized = axis < 0 ? axis + rank : axis;
  for (int64_t i = normalized; i < rank; ++i)
    if (failed(context.unify(ss[i - normalized], xs[i], op,
                             "scale must have X's normalized dims")))
      return failure();
  for (Value stat : stats) {
    Shape st = context.getShape(stat);
    for (int64_t i = 0; i < (int64_t)st.size(); ++i) {
      Dim expected = i < normalized ? xs[i] : Dim::size(1);
      if (failed(context.unify(st[i], expected, op,
                               "the saved statistics must have one value per "
                               "row of X")))
        return failure();
    }
  }
  return success();
}

LogicalResult LayerNormalizationGradOp::verify() {
  if (failed(verifyNormalization(*this, getX(), getScale(), getAxis())) ||
      failed(verifySameElementType(*this, getYGrad(), getScale(),
                                   "Y_grad and scale")) ||
      failed(verifySameElementType(*this, getMean(), getInvStdDev(),
                                   "mean and inv_std_dev")))
    return failure();
  return success(
      succeeded(verifyRowStatistic(*this, getX(), getMean(), getAxis(),
                                   "mean")) &&
      succeeded(verifyRowStatistic(*this, getX(), getInvStdDev(), getAxis(),
                                   "inv_std_dev")));
}

LogicalResult LayerNormalizationGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getYGrad(), getX(),
                         "Y_grad and X must have the same shape")) ||
      failed(unifyNormalization(context, *this, getX(), getScale(),
                                {getMean(), getInvStdDev()}, getAxis())))
    return failure();
  (void)inferSameShape(context, getX(), getXGrad());
  (void)inferSameShape(context, getScale(), getScaleGrad());
  return inferSameShape(context, getScale(), getBiasGrad());
}

LogicalResult SimplifiedLayerNormalizationOp::verify() {
  return verifyNormalization(*this, getX(), getScale(), getAxis());
}

LogicalResult SimplifiedLayerNormalizationOp::inferShapes(ShapeContext &context) {
  if (failed(unifyNormalization(context, *this, getX(), getScale(), {},
                                getAxis())))
    return failure();
  Shape xs = context.getShape(getX());
  int64_t rank = xs.size();
  int64_t normalized = getAxis() < 0 ? getAxis() + rank : getAxis();
  Shape stat(xs.begin(), xs.begin() + normalized);
  stat.append(rank - normalized, Dim::size(1));
  // ORT keeps the statistic in float for 16-bit inputs (stash_type 1).
  Type elementType = ShapeContext::getElementType(getX());
  if (getStashType() == 1 && elementType.getIntOrFloatBitWidth() == 16)
    elementType = Float32Type::get(getContext());
  context.setShape(getInvStdVar(), stat, elementType);
  return inferSameShape(context, getX(), getY());
}

LogicalResult SimplifiedLayerNormalizationGradOp::verify() {
  if (failed(verifyNormalization(*this, getX(), getScale(), getAxis())) ||
      failed(verifySameElementType(*this, getYGrad(), getScale(),
                                   "Y_grad and scale")))
    return failure();
  return verifyRowStatistic(*this, getX(), getInvStdVar(), getAxis(),
                            "inv_std_var");
}

LogicalResult
SimplifiedLayerNormalizationGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getYGrad(), getX(),
                         "Y_grad and X must have the same shape")) ||
      failed(unifyNormalization(context, *this, getX(), getScale(),
                                {getInvStdVar()}, getAxis())))
    return failure();
  (void)inferSameShape(context, getX(), getXGrad());
  return inferSameShape(context, getScale(), getScaleGrad());
}

} // namespace odt::onnx
