//===- Optimizers.cpp - onnx.ms.AdamWOptimizer, onnx.ms.SGDOptimizerV2 ----===//

#include "dialects/onnx/ops/OpHelpers.h"

using namespace mlir;

namespace odt::onnx {

/// Weights, gradients and moments of one parameter share type and shape.
static LogicalResult verifyParameterGroups(Operation *op,
                                           ArrayRef<ValueRange> groups,
                                           ArrayRef<StringRef> names) {
  ValueRange weights = groups.front();
  for (size_t g = 1; g < groups.size(); ++g)
    for (auto [weight, other] : llvm::zip(weights, groups[g]))
      if (weight.getType() != other.getType())
        return emitNodeError(op)
               << names[g] << " must have the type of its weight: "
               << other.getType() << " vs " << weight.getType();
  return success();
}

/// SameVariadicOperandSize and SameVariadicResultSize split the operands and
/// results by integer division, so uneven groups would silently lose values.
/// The `numGroups` operand groups after `numSingle` operands must be equally
/// long, and there must be `numSingleResults` results plus `numResultGroups`
/// results per weight.
static LogicalResult verifyGroupSizes(Operation *op, unsigned numSingle,
                                      unsigned numGroups,
                                      unsigned numSingleResults,
                                      unsigned numResultGroups) {
  unsigned grouped = op->getNumOperands() - numSingle;
  if (grouped % numGroups != 0)
    return emitNodeError(op) << grouped << " sequence operands do not split "
                             << "into " << numGroups
                             << " sequences of one length";
  unsigned numWeights = grouped / numGroups;
  unsigned expected = numSingleResults + numResultGroups * numWeights;
  if (op->getNumResults() != expected)
    return emitNodeError(op) << "expected " << expected << " results for "
                             << numWeights << " weights, got "
                             << op->getNumResults();
  return success();
}

static LogicalResult verifyScalar(Operation *op, Value value, StringRef what) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    if (type.getNumElements() != 1)
      return emitNodeError(op) << what << " must hold one element";
  return success();
}

static void inferGroupShapes(ShapeContext &context, ValueRange inputs,
                             ValueRange results) {
  for (auto [input, result] : llvm::zip(inputs, results))
    context.setShape(result, context.getShape(input),
                     ShapeContext::getElementType(input));
}

LogicalResult AdamWOptimizerOp::verify() {
  if (failed(verifyGroupSizes(*this, /*numSingle=*/2, /*numGroups=*/4,
                              /*numSingleResults=*/1, /*numResultGroups=*/3)) ||
      failed(verifyScalar(*this, getLr(), "learning rate")) ||
      failed(verifyScalar(*this, getStep(), "step")))
    return failure();
  if (getAdamMode() != 0 && getAdamMode() != 1)
    return emitNodeError(*this) << "adam_mode must be 0 or 1, got "
                                << getAdamMode();
  return verifyParameterGroups(
      *this, {getWeights(), getGradients(), getMomentums_1(), getMomentums_2()},
      {"weights", "gradients", "first-order moments", "second-order moments"});
}

LogicalResult AdamWOptimizerOp::inferShapes(ShapeContext &context) {
  context.setShape(getUpdatedFlag(), {Dim::size(1)},
                   IntegerType::get(getContext(), 1));
  inferGroupShapes(context, getWeights(), getUpdatedWeights());
  inferGroupShapes(context, getMomentums_1(), getUpdatedMomentums_1());
  inferGroupShapes(context, getMomentums_2(), getUpdatedMomentums_2());
  return success();
}

LogicalResult SGDOptimizerV2Op::verify() {
  if (failed(verifyGroupSizes(*this, /*numSingle=*/1, /*numGroups=*/2,
                              /*numSingleResults=*/1, /*numResultGroups=*/1)) ||
      failed(verifyScalar(*this, getLr(), "learning rate")))
    return failure();
  return verifyParameterGroups(*this, {getWeights(), getGradients()},
                               {"weights", "gradients"});
}

LogicalResult SGDOptimizerV2Op::inferShapes(ShapeContext &context) {
  context.setShape(getUpdateCompleted(), {Dim::size(1)},
                   IntegerType::get(getContext(), 1));
  inferGroupShapes(context, getWeights(), getUpdatedWeights());
  return success();
}

} // namespace odt::onnx
