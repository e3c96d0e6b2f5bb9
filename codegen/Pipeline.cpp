//===- Pipeline.cpp - from imported graphs to a loadable model ------------===//

#include "codegen/Pipeline.h"
#include "codegen/common/Passes.h"
#include "codegen/common/RunPipeline.h"
#include "codegen/conversion/Passes.h"
#include "codegen/cpu/Passes.h"
#include "codegen/gpu/GPUBackend.h"
#include "codegen/gpu/Passes.h"
#include "compiler/passes/Passes.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

using namespace mlir;

namespace odt {

void registerCompilerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<onnx::ONNXDialect>();
}

void registerCompilerPasses() {
  // Once per process: a pipeline registered twice is a fatal error, and the
  // tools register before parsing their command line (so that
  // --mlir-print-ir-after=PASS knows odt's passes) and again per context.
  static std::once_flag registered;
  std::call_once(registered, []() {
    registerAllPasses();
    registerODTCompilerPasses();
    registerODTConversionPasses();
    registerODTCodegenCommonPasses();
    registerODTCodegenCPUPasses();
    registerODTCodegenGPUPasses();
    registerCompilerPipelines();
  });
}

void buildGraphPipeline(OpPassManager &pm) {
  // 1. ORT's in-place updates become tied results.
  pm.addPass(createAssembleTrainingProgram());
  // 2. com.microsoft ops that are compositions of ai.onnx ops become those
  //    ops, and so do composite ai.onnx ops (then re-typed).
  pm.addNestedPass<func::FuncOp>(createDecomposeTrainingOps());
  pm.addNestedPass<func::FuncOp>(createDecomposeCompositeOps());
  // 3. Steps with training-mode Dropout take the session's seed and step
  //    counter.
  pm.addPass(createAddRandomState());
  // The dims inference assumed become checks for the runtime.
  pm.addNestedPass<func::FuncOp>(
      createInferShapes(InferShapesOptions{/*assertAssumedDims=*/true}));
  // 4. Drop what nothing reads, merge duplicates.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 5. The entry points' ABI, for the descriptor, before lowering erases
  //    it (codegen/common/AbiRecord.h).
  pm.addPass(createRecordAbi());
}

void buildLinalgPipeline(OpPassManager &pm, bool optimize) {
  // 1. Every op to linalg/tensor/arith/math.
  pm.addPass(createConvertONNXToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 2. Elementwise chains into single loops.
  if (optimize) {
    pm.addPass(createFuseElementwise());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // 3. Outputs sized at run time get a shape function (after fusion: less
  //    to cut).
  pm.addPass(createGenerateShapeFunctions());
  // 4. What every backend starts from holds only what the middle's contract
  //    allows (docs/middle-contract.md).
  pm.addPass(createVerifyMiddle());
}

LogicalResult runGraphPipeline(ModuleOp module, Verification verification) {
  return runPassPipeline(module, buildGraphPipeline, verification);
}

LogicalResult runLinalgPipeline(ModuleOp module, bool optimize,
                                Verification verification) {
  return runPassPipeline(
      module, [&](OpPassManager &pm) { buildLinalgPipeline(pm, optimize); },
      verification);
}

namespace {
struct LinalgPipelineOptions
    : public PassPipelineOptions<LinalgPipelineOptions> {
  Option<bool> optimize{*this, "optimize",
                        llvm::cl::desc("Fuse elementwise chains (false: "
                                       "every op its own loop nest)"),
                        llvm::cl::init(true)};
};
} // namespace

void registerCompilerPipelines() {
  PassPipelineRegistration<>(
      "odt-graph-pipeline",
      "odt-compile's graph stage: training program assembled, composite "
      "ops decomposed, shapes inferred",
      buildGraphPipeline);
  PassPipelineRegistration<LinalgPipelineOptions>(
      "odt-linalg-pipeline",
      "odt-compile's linalg stage: onnx to linalg on tensors, elementwise "
      "fusion, shape functions (the shared middle)",
      [](OpPassManager &pm, const LinalgPipelineOptions &options) {
        buildLinalgPipeline(pm, options.optimize);
      });
  registerCPUPipeline();
  registerGPUPipeline();
}

} // namespace odt
