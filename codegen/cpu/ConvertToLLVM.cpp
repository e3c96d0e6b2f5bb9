//===- ConvertToLLVM.cpp - the CPU backend's one conversion to LLVM -------===//
//
// See Passes.td. One LLVMTypeConverter and one pattern set for every dialect
// the CPU backend still has after vector lowering, applied in one partial
// conversion: the options are the ones the separate upstream passes were
// given here (the module's data layout, generic allocation functions).
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/KernelLaunches.h"
#include "codegen/cpu/Passes.h"

#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CONVERTTOLLVM
#include "codegen/cpu/Passes.h.inc"

namespace {

struct ConvertToLLVMPass : impl::ConvertToLLVMBase<ConvertToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    StringRef layoutString;
    if (auto layout = module->getAttrOfType<StringAttr>(
            LLVM::LLVMDialect::getDataLayoutAttrName()))
      layoutString = layout.getValue();
    if (failed(LLVM::LLVMDialect::verifyDataLayoutString(
            layoutString,
            [&](const Twine &message) { module.emitError() << message; })))
      return signalPassFailure();

    const auto &layouts = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(context, layouts.getAtOrAbove(module));
    options.dataLayout = llvm::DataLayout(layoutString);
    // Allocations go through the allocator the runtime installs.
    options.useGenericFunctions = true;
    LLVMTypeConverter converter(context, options, &layouts);

    // A symbol table per pattern family, as each family's own pass keeps:
    // the memref and assert patterns add declarations, the func patterns
    // replace functions.
    SymbolTableCollection memrefSymbols, funcSymbols, assertSymbols;
    RewritePatternSet patterns(context);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns,
                                                   &memrefSymbols);
    populateMathToLLVMConversionPatterns(converter, patterns);
    // The upstream arith pass expands ceildiv/floordiv before converting;
    // here the expansions are patterns of the same conversion.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns, &funcSymbols);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    cf::populateAssertToLLVMConversionPattern(
        converter, patterns, /*abortOnFailure=*/true, &assertSymbols);
    // A GPU build's host code: launches call the runtime's launcher.
    populateKernelLaunchToLLVMPatterns(converter, patterns);

    LLVMConversionTarget target(*context);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // A launch its pattern could not lower (the pattern said why at the
    // launch) must not stay behind.
    if (module.walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

} // namespace odt
