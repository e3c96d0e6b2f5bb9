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
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).use_empty() &&
          !fill->getResult(0).hasOneUse())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared) {
      // Only linalg ops that write into the fill get their own copy; the
      // other uses (and the first of these) keep the original.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        auto owner = dyn_cast<linalg::LinalgOp>(use.getOwner());
        if (owner && owner.isDpsInit(&use))
          uses.push_back(&use);
      }
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
