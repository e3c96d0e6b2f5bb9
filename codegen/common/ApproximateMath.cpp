//===- ApproximateMath.cpp - vectorizable exp
//------------------------------===//
//
// See Passes.td. Only exp: it is the function whose libm call dominated the
// transformer's step (softmax over every attention score), and upstream's
// approximation of it is accurate to about one ulp in f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_APPROXIMATEMATH
#include "codegen/common/Passes.h.inc"

namespace {

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name == "math.exp"; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace odt
