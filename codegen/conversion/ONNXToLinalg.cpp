//===- ONNXToLinalg.cpp - the onnx -> linalg conversion pass --------------===//

#include "codegen/conversion/Common.h"
#include "codegen/conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "codegen/conversion/Passes.h.inc"

namespace {

struct ConvertONNXToLinalgPass
    : impl::ConvertONNXToLinalgBase<ConvertONNXToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    codegen::populateBasicLoweringPatterns(patterns);
    codegen::populateElementwiseLoweringPatterns(patterns);
    codegen::populateShapeLoweringPatterns(patterns);
    codegen::populateReductionLoweringPatterns(patterns);
    codegen::populateNNLoweringPatterns(patterns);
    codegen::populateTrainingLoweringPatterns(patterns);

    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect,
                           bufferization::BufferizationDialect>();
    target.addIllegalDialect<onnx::ONNXDialect>();
    // Absent optional inputs disappear with their users.
    target.addLegalOp<onnx::NoValueOp>();

    // Report every op without a lowering at once, by node name.
    bool missing = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<onnx::ONNXDialect>(op->getDialect()) || isa<onnx::NoValueOp>(op))
        return;
      if (!patterns.getNativePatterns().empty() &&
          llvm::none_of(patterns.getNativePatterns(), [&](const auto &pattern) {
            std::optional<OperationName> root = pattern->getRootKind();
            return root && *root == op->getName();
          })) {
        op->emitError() << "node '" << onnx::getNodeName(op) << "' ("
                        << op->getName() << "): no lowering to linalg";
        missing = true;
      }
    });
    if (missing)
      return signalPassFailure();

    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    getOperation().walk([](onnx::NoValueOp op) {
      if (op->use_empty())
        op->erase();
    });
  }
};

} // namespace
} // namespace odt
