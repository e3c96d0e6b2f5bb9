//===- ReductionHelpers.h - Reduction family shared checks -----*- C++ -*-===//
//
// Verifiers and shape inference shared by the ops of ops/Reduction.td: the
// Reduce* ops (axes from an attribute or an input), axis attributes, and the
// losses (SoftmaxCrossEntropyLoss, its gradient, NegativeLogLikelihoodLoss).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_DIALECTS_ONNX_OPS_REDUCTIONHELPERS_H
#define ODT_DIALECTS_ONNX_OPS_REDUCTIONHELPERS_H

#include "dialects/onnx/ops/OpHelpers.h"

namespace odt::onnx::reduction {

/// `axis` in [-rank, rank) as a non-negative axis, or std::nullopt.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Fails (node-located) unless `axis` lies in [-rank, rank) where the rank of
/// `value` is known.
mlir::LogicalResult verifyAxis(mlir::Operation *op, mlir::Value value,
                               int64_t axis, llvm::StringRef what);

/// Fails unless the attribute `name` is 0 or 1.
mlir::LogicalResult verifyFlag(mlir::Operation *op, int64_t value,
                               llvm::StringRef name);

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

/// The normalized, sorted reduction axes of a Reduce* op: from the `axes`
/// attribute or the constant `axesInput`; absent or empty axes reduce every
/// dim, or none if `noopWithEmptyAxes`. Fails if the rank of `data` is
/// unknown, `axesInput` is not a constant, or an axis is out of range or
/// repeated.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getReduceAxes(mlir::Value data, mlir::Value axesInput,
              std::optional<llvm::ArrayRef<int64_t>> axesAttr,
              bool noopWithEmptyAxes);

/// Operand and attribute checks of a Reduce* op.
mlir::LogicalResult verifyReduce(mlir::Operation *op, mlir::Value data,
                                 mlir::Value axesInput,
                                 std::optional<llvm::ArrayRef<int64_t>> axesAttr,
                                 int64_t keepdims, int64_t noopWithEmptyAxes);

/// The result shape of a Reduce* op: data's dims without the reduced ones,
/// or with 1s in their place if `keepdims`.
Shape reducedShape(llvm::ArrayRef<Dim> data, llvm::ArrayRef<int64_t> axes,
                   bool keepdims);

template <typename ReduceOp>
mlir::FailureOr<llvm::SmallVector<int64_t>> getReduceOpAxes(ReduceOp op) {
  return getReduceAxes(op.getData(), op.getAxesInput(), op.getAxes(),
                       op.getNoopWithEmptyAxes() != 0);
}

template <typename ReduceOp> mlir::LogicalResult verifyReduceOp(ReduceOp op) {
  return verifyReduce(op, op.getData(), op.getAxesInput(), op.getAxes(),
                      op.getKeepdims(), op.getNoopWithEmptyAxes());
}

/// Sets the result of a Reduce* op: reduced shape, data's element type.
template <typename ReduceOp>
mlir::LogicalResult inferReduceOpShapes(ReduceOp op, ShapeContext &context) {
  mlir::FailureOr<llvm::SmallVector<int64_t>> axes = op.getConstantAxes();
  if (mlir::failed(axes))
    return emitNodeError(op)
           << "axes must be a constant (computed axes are not supported)";
  context.setShape(op.getReduced(),
                   reducedShape(context.getShape(op.getData()), *axes,
                                op.getKeepdims() != 0),
                   ShapeContext::getElementType(op.getData()));
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// Losses: scores/input [N, C] or [N, C, d1, ...], labels/target [N] or
// [N, d1, ...], optional per-class weights [C].
//===----------------------------------------------------------------------===//

/// Fails unless `reduction` is none, sum or mean.
mlir::LogicalResult verifyLossReduction(mlir::Operation *op,
                                        llvm::StringRef reduction);

/// The operands' names in diagnostics.
struct LossNames {
  llvm::StringRef scores = "scores";
  llvm::StringRef labels = "labels";
  llvm::StringRef weights = "weights";
};

/// Rank and element-type checks of scores, labels and weights.
mlir::LogicalResult verifyLossOperands(mlir::Operation *op, mlir::Value scores,
                                       mlir::Value labels, mlir::Value weights,
                                       const LossNames &names = {});

/// Unifies labels with scores minus the class dim and weights with [C].
mlir::LogicalResult unifyLossShapes(ShapeContext &context, mlir::Operation *op,
                                    mlir::Value scores, mlir::Value labels,
                                    mlir::Value weights,
                                    const LossNames &names = {});

/// The loss's shape: the labels' for "none", else a scalar.
Shape lossShape(ShapeContext &context, mlir::Value labels,
                llvm::StringRef reduction);

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// An einsum equation resolved against its inputs' ranks. Loops are the
/// broadcast ("...") dims first, then one per letter in order of first use;
/// every input and output dim names the loop that indexes it.
struct EinsumEquation {
  unsigned numEllipsisDims = 0;
  /// One character per loop: the letter, or '.' for an ellipsis dim.
  llvm::SmallVector<char> loopLabels;
  llvm::SmallVector<llvm::SmallVector<unsigned>> inputs;
  llvm::SmallVector<unsigned> output;

  unsigned getNumLoops() const { return loopLabels.size(); }
  /// Whether a loop is summed over (not in the output).
  bool isReduction(unsigned loop) const {
    return !llvm::is_contained(output, loop);
  }
};

/// Parses `equation` for inputs of the given ranks; on failure `error` says
/// why.
mlir::FailureOr<EinsumEquation>
parseEinsumEquation(llvm::StringRef equation,
                    llvm::ArrayRef<int64_t> inputRanks, std::string &error);

} // namespace odt::onnx::reduction

#endif // ODT_DIALECTS_ONNX_OPS_REDUCTIONHELPERS_H
