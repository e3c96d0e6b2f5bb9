//===- LowerKernelMath.cpp - kernel math without libdevice ----------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_LOWERKERNELMATH
#include "codegen/gpu/Passes.h.inc"

namespace {

/// `op` as a call of the LLVM intrinsic `name`, overloaded on its type.
template <typename MathOp> struct IntrinsicCall : OpRewritePattern<MathOp> {
  IntrinsicCall(MLIRContext *context, StringRef name)
      : OpRewritePattern<MathOp>(context), name(name.str()) {}

  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    auto call = LLVM::CallIntrinsicOp::create(
        rewriter, op.getLoc(), op->getResultTypes(),
        rewriter.getStringAttr(name), op->getOperands(),
        LLVM::FastmathFlagsAttr::get(op.getContext(),
                                     LLVM::FastmathFlags::none));
    rewriter.replaceOp(op, call->getResults());
    return success();
  }

  std::string name;
};

struct LowerKernelMathPass : impl::LowerKernelMathBase<LowerKernelMathPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // 1. Functions that are compositions of others.
    {
      RewritePatternSet patterns(context);
      math::populateExpansionPatterns(patterns,
                                      {"powf", "fpowi", "tan", "sinh", "cosh",
                                       "asinh", "acosh", "atanh", "exp2"});
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // 2. Transcendentals as polynomials (narrow floats through f32).
    {
      RewritePatternSet patterns(context);
      auto every = [](StringRef) { return true; };
      populateMathF32ExpansionPatterns(patterns, every);
      populateMathPolynomialApproximationPatterns(patterns, every);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // 3. What is left maps to NVPTX instructions through LLVM intrinsics,
    //    called by name: convert-gpu-to-nvvm would turn math ops and the
    //    llvm.intr ops of math-to-llvm into libdevice calls.
    {
      RewritePatternSet patterns(context);
      patterns.add<IntrinsicCall<math::SqrtOp>>(context, "llvm.sqrt");
      patterns.add<IntrinsicCall<math::FloorOp>>(context, "llvm.floor");
      patterns.add<IntrinsicCall<math::CeilOp>>(context, "llvm.ceil");
      patterns.add<IntrinsicCall<math::FmaOp>>(context, "llvm.fma");
      patterns.add<IntrinsicCall<math::AbsFOp>>(context, "llvm.fabs");
      patterns.add<IntrinsicCall<math::CopySignOp>>(context, "llvm.copysign");
      patterns.add<IntrinsicCall<math::RoundOp>>(context, "llvm.round");
      patterns.add<IntrinsicCall<math::RoundEvenOp>>(context, "llvm.roundeven");
      patterns.add<IntrinsicCall<math::TruncOp>>(context, "llvm.trunc");
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // Anything else (f64 transcendentals: the polynomials are f32 only)
    // would become a libdevice call.
    WalkResult left = getOperation().walk([&](Operation *op) {
      if (!isa<math::MathDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' in a GPU kernel: odt has no lowering for it "
                         "without libdevice";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
