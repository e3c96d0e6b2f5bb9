//===- Passes.td - onnx -> linalg on tensors ---------------*- tablegen -*-===//

#ifndef ODT_CODEGEN_CONVERSION_PASSES
#define ODT_CODEGEN_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertONNXToLinalg : Pass<"odt-convert-onnx-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower onnx ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every onnx op becomes linalg.generic (or fill/constant) ops on tensors with
    dynamic dims taken from tensor.dim, so one compiled model serves any batch
    size. Fails, naming each node, if an op has no lowering.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // ODT_CODEGEN_CONVERSION_PASSES
