//===- LowerConvolutions.cpp - each convolution as its config says --------===//
//
// See Passes.td and ConvolutionSelection.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ConvolutionSelection.h"
#include "codegen/cpu/Passes.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_LOWERCONVOLUTIONS
#include "codegen/cpu/Passes.h.inc"

namespace {

struct LowerConvolutionsPass
    : impl::LowerConvolutionsBase<LowerConvolutionsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> configured;
    getOperation().walk([&](Operation *op) {
      if (op->hasAttr(cpu::kConvolutionConfigAttr))
        configured.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool failedAny = false;
    for (Operation *op : configured) {
      std::optional<cpu::ConvolutionForm> form = cpu::matchConvolution(op);
      if (!form) {
        op->emitError() << "'" << cpu::kConvolutionConfigAttr
                        << "' on an op that is not a convolution the CPU "
                           "kernels compute (linalg.conv_2d_nchw_fchw or "
                           "the middle's filter-gradient generic)";
        failedAny = true;
        continue;
      }
      FailureOr<std::optional<cpu::ConvolutionConfig>> config =
          cpu::readConvolutionConfig(*form);
      if (failed(config)) {
        failedAny = true;
        continue;
      }
      rewriter.setInsertionPoint(op);
      Value result;
      bool forward = form->kind == cpu::ConvolutionForm::Kind::Forward;
      if (forward &&
          (*config)->kernel == cpu::ConvolutionKernel::ScatteredColumns)
        result = cpu::buildForwardScatteredColumns(rewriter, *form, **config);
      else if (forward)
        result = cpu::buildForwardImageColumns(rewriter, *form, **config);
      else if ((*config)->kernel == cpu::ConvolutionKernel::ImageColumns)
        result =
            cpu::buildFilterGradientImageColumns(rewriter, *form, **config);
      else
        result = cpu::buildFilterGradientImagePartials(rewriter, *form);
      if (forward && (*config)->reluEpilogue) {
        rewriter.replaceOp(form->relu, result);
        rewriter.eraseOp(op);
      } else {
        rewriter.replaceOp(op, result);
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
