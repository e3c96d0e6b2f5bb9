//===- InterchangeReductions.cpp - reductions outside the inner loop ------===//
//
// (i, j, k) of C[i, j] += A[i, k] * B[k, j] becomes (i, k, j): the inner loop
// runs along a row of C and of B, vectorizable, instead of down a column of
// B. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_INTERCHANGEREDUCTIONS
#include "codegen/Passes.h.inc"

namespace {

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
