//===- Pipeline.cpp - from imported graphs to a loadable model ------------===//

#include "codegen/Pipeline.h"
#include "codegen/common/Passes.h"
#include "codegen/common/RunPipeline.h"
#include "codegen/conversion/Passes.h"
#include "codegen/cpu/Passes.h"
#include "compiler/passes/Passes.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;

namespace odt {

void registerCompilerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<onnx::ONNXDialect>();
}

void registerCompilerPasses() {
  registerAllPasses();
  registerODTCompilerPasses();
  registerODTConversionPasses();
  registerODTCodegenCommonPasses();
  registerODTCodegenCPUPasses();
}

LogicalResult runGraphPipeline(ModuleOp module) {
  return runPassPipeline(module, ""
                             // 1. ORT's in-place updates become tied results.
                             "odt-assemble-training-program,"
                             // 2. com.microsoft ops that are compositions of
                             //    ai.onnx ops become those ops, and so do
                             //    composite ai.onnx ops (then re-typed).
                             "func.func(odt-decompose-training-ops),"
                             "func.func(odt-decompose-composite-ops),"
                             // 3. Steps with training-mode Dropout take the
                             //    session's seed and step counter.
                             "odt-add-random-state,"
                             "func.func(odt-infer-shapes),"
                             // 4. Drop what nothing reads, merge duplicates.
                             "canonicalize, cse");
}

LogicalResult runLinalgPipeline(ModuleOp module, bool optimize) {
  return runPassPipeline(module, std::string() +
                                 // 1. Every op to linalg/tensor/arith/math.
                                 "odt-convert-onnx-to-linalg,"
                                 "canonicalize, cse," +
                                 // 2. Elementwise chains into single loops.
                                 (optimize ? "odt-fuse-elementwise,"
                                             "canonicalize, cse,"
                                           : "") +
                                 // 3. Outputs sized at run time get a shape
                                 //    function (after fusion: less to cut).
                                 "odt-generate-shape-functions");
}

} // namespace odt
