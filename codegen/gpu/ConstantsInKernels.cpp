//===- ConstantsInKernels.cpp - kernels read their own constants ----------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CONSTANTSINKERNELS
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Whether `value` is a constant global seen through views (casts,
/// reshapes, subviews): the host's copy, which a kernel cannot read.
bool isViewOfConstantGlobal(Value value) {
  while (Operation *definition = value.getDefiningOp()) {
    if (isa<memref::GetGlobalOp>(definition))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(definition);
    if (!view || definition->getNumResults() != 1 ||
        !isMemoryEffectFree(definition))
      return false;
    value = view.getViewSource();
  }
  return false;
}

struct ConstantsInKernelsPass
    : impl::ConstantsInKernelsBase<ConstantsInKernelsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::LaunchOp launch) {
      Region &body = launch.getBody();
      SetVector<Value> captured;
      getUsedValuesDefinedAbove(body, captured);
      OpBuilder builder(launch.getContext());
      builder.setInsertionPointToStart(&body.front());
      for (Value value : captured) {
        if (!isViewOfConstantGlobal(value))
          continue;
        // The get_global and the views on it, in order, cloned into the
        // body (their other operands, indices, stay values from above that
        // outlining passes in).
        SmallVector<Operation *> chain;
        for (Value link = value; Operation *definition = link.getDefiningOp();
             link =
                 isa<memref::GetGlobalOp>(definition)
                     ? Value()
                     : cast<ViewLikeOpInterface>(definition).getViewSource()) {
          chain.push_back(definition);
          if (isa<memref::GetGlobalOp>(definition))
            break;
        }
        IRMapping mapping;
        Operation *copy = nullptr;
        for (Operation *link : llvm::reverse(chain))
          copy = builder.clone(*link, mapping);
        replaceAllUsesInRegionWith(value, copy->getResult(0), body);
      }
    });
  }
};

} // namespace
} // namespace odt
