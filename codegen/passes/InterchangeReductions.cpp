//===- InterchangeReductions.cpp - reductions outside the inner loop ------===//
//
// (i, j, k) of C[i, j] += A[i, k] * B[k, j] becomes (i, k, j): the inner loop
// runs along a row of C and of B, vectorizable, instead of down a column of
// B. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_INTERCHANGEREDUCTIONS
#include "codegen/Passes.h.inc"

namespace {

/// Whether `op` reduces along its last loop and every input that the loop
/// moves has it as its innermost, contiguous dim (a row sum, softmax's
/// denominator, LayerNorm's mean): moving that loop outside would read the
/// inputs down their columns (gathers); vectorizing along it needs only
/// the sum to be reassociable.
bool reducesAlongRows(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || iterators.back() != utils::IteratorType::reduction)
    return false;
  unsigned last = iterators.size() - 1;
  bool read = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(last))
      continue;
    if (map.getNumResults() == 0)
      return false;
    auto innermost = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!innermost || innermost.getPosition() != last)
      return false;
    read = true;
  }
  return read;
}

/// Marks each output's combining op (`out + x`, `max(out, x)`) as
/// reassociable, so LLVM vectorizes the reduction with partial sums. Returns
/// false, changing nothing, if some output is not such a combination.
bool allowReassociation(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  SmallVector<Operation *> combiners;
  for (auto [index, yielded] :
       llvm::enumerate(body.getTerminator()->getOperands())) {
    BlockArgument out =
        op.getMatchingBlockArgument(op.getDpsInitOperand(index));
    Operation *combiner = yielded.getDefiningOp();
    if (!combiner ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(combiner) ||
        !llvm::is_contained(combiner->getOperands(), Value(out)))
      return false;
    combiners.push_back(combiner);
  }
  for (Operation *combiner : combiners) {
    auto fastMath = cast<arith::ArithFastMathInterface>(combiner);
    combiner->setAttr(
        fastMath.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(
            op.getContext(), fastMath.getFastMathFlagsAttr().getValue() |
                                 arith::FastMathFlags::reassoc));
  }
  return !combiners.empty();
}

/// The loop order that puts `op`'s reductions just outside its last parallel
/// loop, or nothing when the rule does not apply.
std::optional<SmallVector<unsigned>> reductionsOutside(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || iterators.back() != utils::IteratorType::reduction)
    return std::nullopt;
  SmallVector<unsigned> parallel, reduction;
  for (auto [index, iterator] : llvm::enumerate(iterators))
    (iterator == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(index);
  if (parallel.size() < 2 || op.getNumDpsInits() == 0)
    return std::nullopt;
  // Several outputs (a max and its position) must be laid out alike.
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init) != output)
      return std::nullopt;
  if (output.getNumResults() == 0)
    return std::nullopt;
  auto innermost = dyn_cast<AffineDimExpr>(output.getResults().back());
  if (!innermost || innermost.getPosition() != parallel.back())
    return std::nullopt;
  SmallVector<unsigned> order(parallel.begin(), parallel.end() - 1);
  order.append(reduction.begin(), reduction.end());
  order.push_back(parallel.back());
  return order;
}

struct InterchangeReductionsPass
    : impl::InterchangeReductionsBase<InterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        if (reducesAlongRows(op) && allowReassociation(generic))
          return;
      if (std::optional<SmallVector<unsigned>> order = reductionsOutside(op))
        work.push_back({op, *order});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : work) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue; // a named op without a body builder stays as it is
        generic = *generalized;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic.emitError() << "internal error: cannot interchange loops";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
} // namespace odt
