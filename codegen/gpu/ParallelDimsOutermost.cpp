//===- ParallelDimsOutermost.cpp - reductions inside each GPU thread ------===//
//
// A linalg.generic whose reduction dims come before parallel ones (a bias
// gradient sums over rows: (r, c) with r reducing) would become, through
// convert-linalg-to-parallel-loops, a sequential host loop around a parallel
// loop: one kernel launch per reduced row. With its parallel dims first, the
// whole op is one parallel loop with the reductions sequential inside each
// thread: one launch. Each output element sums in the same order as before.
//
// Named ops with reductions (convolutions, linalg.reduce, products) become
// generics first: convert-linalg-to-parallel-loops would lower them with a
// load and a store of the output per term, where odt-gpu-accumulate-in-
// registers, which takes generics, keeps each sum in a register.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PARALLELDIMSOUTERMOST
#include "codegen/gpu/Passes.h.inc"

namespace {

/// The loop order with every parallel dim first, each group in its order;
/// empty when the op already has it.
SmallVector<unsigned> parallelFirstOrder(linalg::GenericOp op) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [dim, type] : llvm::enumerate(op.getIteratorTypesArray()))
    (type == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(dim);
  SmallVector<unsigned> order(parallel);
  order.append(reduction);
  for (auto [position, dim] : llvm::enumerate(order))
    if (position != dim)
      return order;
  return {};
}

struct ParallelDimsOutermostPass
    : impl::ParallelDimsOutermostBase<ParallelDimsOutermostPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> namedReductions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) && op.getNumReductionLoops() > 0)
        namedReductions.push_back(op);
    });
    for (linalg::LinalgOp op : namedReductions) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op))) {
        op.emitError("odt-gpu-parallel-dims-outermost: could not make this "
                     "op a linalg.generic");
        return signalPassFailure();
      }
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      SmallVector<unsigned> order = parallelFirstOrder(op);
      if (order.empty())
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order))) {
        op.emitError("odt-gpu-parallel-dims-outermost: could not move the "
                     "parallel dims of this op outside its reductions");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
} // namespace odt
