//===- ConstantsInKernels.cpp - kernels read their own constants ----------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CONSTANTSINKERNELS
#include "codegen/gpu/Passes.h.inc"

namespace {

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
        auto global = value.getDefiningOp<memref::GetGlobalOp>();
        if (!global)
          continue;
        Operation *copy = builder.clone(*global);
        replaceAllUsesInRegionWith(value, copy->getResult(0), body);
      }
    });
  }
};

} // namespace
} // namespace odt
