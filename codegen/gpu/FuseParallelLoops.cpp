//===- FuseParallelLoops.cpp - one kernel for loops over the same elements ===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEPARALLELLOOPS
#include "codegen/gpu/Passes.h.inc"

namespace {

struct FuseParallelLoopsPass
    : impl::FuseParallelLoopsBase<FuseParallelLoopsPass> {
  void runOnOperation() override {
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    auto mayAlias = [&](Value first, Value second) {
      return !isSeparateMemory(first, second) &&
             !aliases.alias(first, second).isNo();
    };
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        scf::naivelyFuseParallelOps(region, mayAlias);
    });
  }
};

} // namespace
} // namespace odt
