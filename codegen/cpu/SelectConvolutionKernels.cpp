//===- SelectConvolutionKernels.cpp - each convolution's config -----------===//
//
// See Passes.td and ConvolutionSelection.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionSelection.h"
#include "codegen/cpu/ConvolutionSelection.h"
#include "codegen/cpu/Passes.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_SELECTCONVOLUTIONKERNELS
#include "codegen/cpu/Passes.h.inc"

namespace {

struct SelectConvolutionKernelsPass
    : impl::SelectConvolutionKernelsBase<SelectConvolutionKernelsPass> {
  using SelectConvolutionKernelsBase::SelectConvolutionKernelsBase;

  void runOnOperation() override {
    if (!forceKernel.empty() && !cpu::isConvolutionKernelName(forceKernel)) {
      getOperation().emitError()
          << "odt-select-convolution-kernels: force-kernel must be linalg, "
             "image_columns, image_partials or scattered_columns, not '"
          << forceKernel << "'";
      return signalPassFailure();
    }
    int64_t vectorWidth =
        cpu::resolveContractionTarget(getOperation(), 0, 0, 0).vectorWidth;
    getOperation().walk([&](Operation *op) {
      if (op->hasAttr(cpu::kConvolutionConfigAttr))
        return;
      std::optional<cpu::ConvolutionForm> form = cpu::matchConvolution(op);
      if (!form)
        return;
      std::string why;
      std::optional<cpu::ConvolutionConfig> config =
          cpu::selectConvolutionConfig(*form, forceKernel, vectorWidth, why);
      if (remarks)
        op->emitRemark() << "convolution: " << why;
      if (config)
        op->setAttr(cpu::kConvolutionConfigAttr,
                    cpu::getConvolutionConfigAttr(&getContext(), *config));
    });
  }
};

} // namespace
} // namespace odt
