//===- ExpandBFloat16.cpp - bf16 conversions without bf16 instructions ----===//
//
// See Passes.td. Upstream's arith-expand has the same rewrite behind an
// option, together with expansions of other ops odt wants LLVM to see as
// they are (maximumf, minimumf); this pass applies the bf16 part alone.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_EXPANDBFLOAT16
#include "codegen/common/Passes.h.inc"

namespace {

struct ExpandBFloat16Pass : impl::ExpandBFloat16Base<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace odt
