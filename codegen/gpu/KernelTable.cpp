//===- KernelTable.cpp - the kernels as the host and the runtime see them -===//
//
// odt-gpu-record-kernels and odt-gpu-take-kernel-images: see Passes.td and
// codegen/common/GPUKernelTable.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GPUKernelTable.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_RECORDKERNELS
#define GEN_PASS_DEF_TAKEKERNELIMAGES
#include "codegen/gpu/Passes.h.inc"

namespace {

struct RecordKernelsPass : impl::RecordKernelsBase<RecordKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(module.getContext());
    SmallVector<Attribute> kernels;
    for (auto kernelModule : module.getOps<gpu::GPUModuleOp>())
      for (auto function : kernelModule.getOps<LLVM::LLVMFuncOp>()) {
        if (!function->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          continue;
        SmallVector<int64_t> bytes;
        for (Type type : function.getArgumentTypes()) {
          int64_t size = getKernelParameterBytes(type);
          if (size < 0) {
            function.emitError() << "kernel parameter of type " << type
                                 << " that odt's launcher cannot pass";
            return signalPassFailure();
          }
          bytes.push_back(size);
        }
        kernels.push_back(builder.getDictionaryAttr(
            {builder.getNamedAttr("name", function.getSymNameAttr()),
             builder.getNamedAttr(
                 "parameters",
                 builder.getI64IntegerAttr(function.getNumArguments())),
             builder.getNamedAttr("parameter_bytes",
                                  builder.getDenseI64ArrayAttr(bytes))}));
      }
    module->setAttr(kGPUKernelsAttr, builder.getArrayAttr(kernels));
  }
};

struct TakeKernelImagesPass : impl::TakeKernelImagesBase<TakeKernelImagesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(module.getContext());
    bool launchesLeft = false;
    module.walk([&](gpu::LaunchFuncOp launch) {
      launch.emitError() << "a kernel launch was left in the host code "
                            "after its lowering to a call of the runtime's "
                            "launcher";
      launchesLeft = true;
    });
    if (launchesLeft)
      return signalPassFailure();
    SmallVector<Attribute> images;
    for (auto binary :
         llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>())) {
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
        if (!target || object.getFormat() != gpu::CompilationTarget::Assembly) {
          binary.emitError() << "a kernel image that is not NVVM PTX";
          return signalPassFailure();
        }
        images.push_back(builder.getDictionaryAttr(
            {builder.getNamedAttr("chip",
                                  builder.getStringAttr(target.getChip())),
             builder.getNamedAttr("ptx", object.getObject())}));
      }
      binary.erase();
    }
    if (images.empty()) {
      module.emitError() << "a GPU build with no kernels: every step's work "
                            "stayed in the host code; compile it for the CPU";
      return signalPassFailure();
    }
    module->setAttr(kGPUImagesAttr, builder.getArrayAttr(images));
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
} // namespace odt
