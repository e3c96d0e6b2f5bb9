//===- SelectContractionKernels.cpp - each product's config ---------------===//
//
// See Passes.td and ContractionSelection.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionSelection.h"
#include "codegen/cpu/Passes.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_SELECTCONTRACTIONKERNELS
#include "codegen/cpu/Passes.h.inc"

namespace {

struct SelectContractionKernelsPass
    : impl::SelectContractionKernelsBase<SelectContractionKernelsPass> {
  using SelectContractionKernelsBase::SelectContractionKernelsBase;

  void runOnOperation() override {
    if (depth == 0) {
      getOperation().emitError(
          "odt-select-contraction-kernels: depth must be positive");
      return signalPassFailure();
    }
    cpu::SelectionOptions options;
    options.target =
        cpu::resolveContractionTarget(getOperation(), vectorWidth, rows, depth);
    options.cachePanels = cachePanels;
    options.remarks = remarks;
    if (!forceKernel.empty()) {
      options.force = cpu::parseKernelName(forceKernel);
      if (!options.force) {
        getOperation().emitError()
            << "odt-select-contraction-kernels: force-kernel must be packed, "
               "direct, dots or swapped, not '"
            << forceKernel << "'";
        return signalPassFailure();
      }
    }
    IRRewriter rewriter(&getContext());
    auto products = cpu::normalizeProducts(getOperation(), rewriter);
    if (failed(
            cpu::selectContractionConfigs(getOperation(), products, options)))
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
