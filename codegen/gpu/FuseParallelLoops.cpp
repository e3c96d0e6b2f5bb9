//===- FuseParallelLoops.cpp - one kernel for loops over the same elements ===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEPARALLELLOOPS
#include "codegen/gpu/Passes.h.inc"

namespace {

/// The buffer `value` is a view of (through subviews, reshapes, casts).
Value getUnderlyingBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `buffer` is memory no other buffer of the function shares: an
/// allocation, or an entry point's argument (docs/abi.md: the buffers the
/// runtime passes never overlap; an entry point's arguments carry odt.role).
bool isSeparateBuffer(Value buffer) {
  if (buffer.getDefiningOp<memref::AllocOp>() ||
      buffer.getDefiningOp<memref::AllocaOp>())
    return true;
  auto argument = dyn_cast<BlockArgument>(buffer);
  if (!argument || !argument.getOwner()->isEntryBlock())
    return false;
  auto function = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  return function &&
         function.getArgAttr(argument.getArgNumber(), "odt.role") != nullptr;
}

struct FuseParallelLoopsPass
    : impl::FuseParallelLoopsBase<FuseParallelLoopsPass> {
  void runOnOperation() override {
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    auto mayAlias = [&](Value first, Value second) {
      Value firstBuffer = getUnderlyingBuffer(first);
      Value secondBuffer = getUnderlyingBuffer(second);
      if (firstBuffer != secondBuffer && isSeparateBuffer(firstBuffer) &&
          isSeparateBuffer(secondBuffer))
        return false;
      return !aliases.alias(first, second).isNo();
    };
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        scf::naivelyFuseParallelOps(region, mayAlias);
    });
  }
};

} // namespace
} // namespace odt
