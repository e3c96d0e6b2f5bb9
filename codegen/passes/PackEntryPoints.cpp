//===- PackEntryPoints.cpp - packed C wrappers for entry points -----------===//

#include "codegen/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PACKENTRYPOINTS
#include "codegen/Passes.h.inc"

namespace {

constexpr StringLiteral kCInterfacePrefix = "_mlir_ciface_";

struct PackEntryPointsPass : impl::PackEntryPointsBase<PackEntryPointsPass> {
  using PackEntryPointsBase::PackEntryPointsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<LLVM::LLVMFuncOp> interfaces;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func.getName().starts_with(kCInterfacePrefix) && !func.isExternal())
        interfaces.push_back(func);

    OpBuilder builder(context);
    auto ptrType = LLVM::LLVMPointerType::get(context);
    SmallVector<LLVM::LLVMFuncOp> wrappers;
    for (LLVM::LLVMFuncOp interface : interfaces) {
      StringRef name = interface.getName().drop_front(kCInterfacePrefix.size());
      std::string wrapperName = prefix + "_" + name.str();
      if (module.lookupSymbol(wrapperName)) {
        interface.emitError() << "symbol '" << wrapperName << "' already exists";
        return signalPassFailure();
      }
      builder.setInsertionPointToEnd(module.getBody());
      Location loc = interface.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          builder, loc, wrapperName,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                      {ptrType}));
      Block *entry = wrapper.addEntryBlock(builder);
      builder.setInsertionPointToStart(entry);
      Value args = entry->getArgument(0);
      SmallVector<Value> operands;
      for (unsigned i = 0; i < interface.getNumArguments(); ++i) {
        if (!isa<LLVM::LLVMPointerType>(interface.getArgumentTypes()[i])) {
          interface.emitError() << "entry point '" << name
                                << "' has a non-pointer C-interface argument";
          return signalPassFailure();
        }
        Value slot = LLVM::GEPOp::create(builder, loc, ptrType, ptrType, args,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
        operands.push_back(LLVM::LoadOp::create(builder, loc, ptrType, slot));
      }
      LLVM::CallOp::create(builder, loc, interface, operands);
      LLVM::ReturnOp::create(builder, loc, ValueRange{});
      wrappers.push_back(wrapper);
    }

    // Only the wrappers (and globals made public on purpose) are exported.
    // odt's own argument attributes (roles, names, dims) were read into the
    // descriptor already; LLVM has no use for them.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal() || llvm::is_contained(wrappers, func))
        continue;
      func.setLinkage(LLVM::Linkage::Internal);
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        for (NamedAttribute attr : func.getArgAttrDict(i)
                                       ? func.getArgAttrDict(i).getValue()
                                       : ArrayRef<NamedAttribute>())
          if (!attr.getName().getValue().starts_with("llvm."))
            func.removeArgAttr(i, attr.getName());
    }
  }
};

} // namespace
} // namespace odt
