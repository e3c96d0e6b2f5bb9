//===- SplitSharedFills.cpp - one fill per consumer -----------------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_SPLITSHAREDFILLS
#include "codegen/common/Passes.h.inc"

namespace {

struct SplitSharedFillsPass : impl::SplitSharedFillsBase<SplitSharedFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> shared;
    // Program order, so that which consumer keeps the original fill does not
    // depend on the order of a value's use list (which printing and parsing
    // the IR changes): the output is the same from odt-compile and odt-opt.
    DenseMap<Operation *, unsigned> position;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      position[op] = position.size();
      auto fill = dyn_cast<linalg::FillOp>(op);
      if (fill && fill.hasPureTensorSemantics() &&
          !fill->getResult(0).use_empty() && !fill->getResult(0).hasOneUse())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared) {
      // Only linalg ops that write into the fill get their own copy; the
      // other uses (and the first of these in program order) keep the
      // original.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        auto owner = dyn_cast<linalg::LinalgOp>(use.getOwner());
        if (owner && owner.isDpsInit(&use))
          uses.push_back(&use);
      }
      llvm::sort(uses, [&](OpOperand *a, OpOperand *b) {
        return std::make_pair(position.lookup(a->getOwner()),
                              a->getOperandNumber()) <
               std::make_pair(position.lookup(b->getOwner()),
                              b->getOperandNumber());
      });
      if (!uses.empty() && uses.size() == fill->getResult(0).getNumUses())
        uses.erase(uses.begin());
      for (OpOperand *use : uses) {
        OpBuilder builder(use->getOwner());
        IRMapping mapping;
        Value destination = fill.getOutputs()[0];
        if (auto empty = destination.getDefiningOp<tensor::EmptyOp>())
          mapping.map(destination, builder.clone(*empty)->getResult(0));
        use->set(builder.clone(*fill, mapping)->getResult(0));
      }
    }
  }
};

} // namespace
} // namespace odt
