//===- FreeAfterLastUse.cpp - deallocate intermediates early --------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FREEAFTERLASTUSE
#include "codegen/common/Passes.h.inc"

namespace {

/// The op of `block` that contains `op` (itself, or an ancestor).
Operation *topLevelAncestor(Block &block, Operation *op) {
  while (op && op->getBlock() != &block)
    op = op->getParentOp();
  return op;
}

struct FreeAfterLastUsePass : impl::FreeAfterLastUseBase<FreeAfterLastUsePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.front();
    SmallVector<memref::DeallocOp> deallocs;
    for (Operation &op : block)
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
    for (memref::DeallocOp dealloc : deallocs) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &block)
        continue;
      // Every value that may alias the buffer: op results of memref type
      // computed from an alias (views, casts, loop results, ...).
      Operation *lastUse = alloc;
      bool escapes = false;
      llvm::DenseSet<Value> aliases{alloc.getResult()};
      SmallVector<Value> worklist{alloc.getResult()};
      while (!worklist.empty() && !escapes) {
        Value value = worklist.pop_back_val();
        for (OpOperand &use : value.getUses()) {
          Operation *user = use.getOwner();
          if (user == dealloc)
            continue;
          Operation *top = topLevelAncestor(block, user);
          if (!top || top->hasTrait<OpTrait::IsTerminator>()) {
            escapes = true;
            break;
          }
          if (lastUse->isBeforeInBlock(top))
            lastUse = top;
          for (Value result : user->getResults())
            if (isa<BaseMemRefType>(result.getType()) &&
                aliases.insert(result).second)
              worklist.push_back(result);
          // A region op whose body yields an alias: its results alias too.
          if (user->hasTrait<OpTrait::IsTerminator>())
            if (Operation *parent = user->getParentOp())
              for (Value result : parent->getResults())
                if (isa<BaseMemRefType>(result.getType()) &&
                    aliases.insert(result).second)
                  worklist.push_back(result);
        }
      }
      if (escapes || lastUse->getNextNode() == dealloc.getOperation())
        continue;
      if (!lastUse->isBeforeInBlock(dealloc))
        continue;
      dealloc->moveAfter(lastUse);
    }
  }
};

} // namespace
} // namespace odt
