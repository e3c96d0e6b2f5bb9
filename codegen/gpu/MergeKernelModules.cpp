//===- MergeKernelModules.cpp - every kernel in one gpu.module ------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_MERGEKERNELMODULES
#include "codegen/gpu/Passes.h.inc"

namespace {

struct MergeKernelModulesPass
    : impl::MergeKernelModulesBase<MergeKernelModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.empty())
      return;
    gpu::GPUModuleOp merged = kernelModules.front();
    // (module, kernel) as the launches name them -> the kernel's name in
    // the merged module (kept unless it clashes).
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> newName;
    SymbolTable kernels(merged);
    for (gpu::GPUModuleOp other : llvm::drop_begin(kernelModules)) {
      for (Operation &op :
           llvm::make_early_inc_range(other.getBody()->without_terminator())) {
        StringAttr name = SymbolTable::getSymbolName(&op);
        // A constant global copied by outlining into every module whose
        // kernel reads it (odt-gpu-constants-in-kernels): one copy of the
        // host's global is enough.
        if (auto global = dyn_cast<memref::GlobalOp>(op)) {
          if (Operation *kept = kernels.lookup(name)) {
            // Renaming it would leave its readers naming the other one.
            if (!OperationEquivalence::isEquivalentTo(
                    kept, &op, OperationEquivalence::Flags::IgnoreLocations)) {
              op.emitError() << "two different globals named '"
                             << name.getValue() << "' in the kernels";
              return signalPassFailure();
            }
            op.erase();
            continue;
          }
        }
        op.remove();
        newName[{other.getNameAttr(), name}] = kernels.insert(&op);
      }
    }
    StringAttr mergedName = merged.getNameAttr();
    // Named `kernels` unless the module has that name already.
    StringAttr finalName = StringAttr::get(&getContext(), "kernels");
    if (SymbolTable::lookupSymbolIn(module, finalName))
      finalName = mergedName;
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr ref = launch.getKernel();
      StringAttr kernel = ref.getLeafReference();
      if (ref.getRootReference() != mergedName)
        kernel = newName.lookup({ref.getRootReference(), kernel});
      launch.setKernelAttr(
          SymbolRefAttr::get(finalName, {FlatSymbolRefAttr::get(kernel)}));
    });
    SymbolTable::setSymbolName(merged, finalName);
    for (gpu::GPUModuleOp other : llvm::drop_begin(kernelModules))
      other.erase();
  }
};

} // namespace
} // namespace odt
