// libFuzzer: ONNX model bytes through odt-compile's importer (protobuf
// parse, opset checks, node import with attribute checks, shape inference)
// and the graph pipeline. Any input must give a module or diagnostics,
// never a crash. The importer's sources are built with coverage for the
// fuzzer; MLIR and the dialect are not.

#include "codegen/Pipeline.h"
#include "compiler/import/GraphImporter.h"
#include "dialects/onnx/ONNXOps.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)) ||
      !model.has_graph())
    return 0;
  // As odt-compile makes it (tools/odt-compile), once per process.
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    odt::registerCompilerDialects(registry);
    odt::registerCompilerPasses();
    auto *created =
        new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    // Diagnostics are the expected outcome of most inputs: not printed.
    created->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return created;
  }();
  mlir::OpBuilder builder(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(builder.getUnknownLoc());
  odt::GraphImportOptions options;
  options.sourcePath = "/nonexistent/fuzzed.onnx";
  options.classifyInput = [](llvm::StringRef) {
    return std::pair<odt::ArgRole, int>(odt::ArgRole::UserInput, -1);
  };
  options.classifyOutput = [](llvm::StringRef) {
    return odt::ArgRole::UserOutput;
  };
  if (mlir::failed(odt::importGraph(model, *module, "eval", options)))
    return 0;
  // Every pass verified: the fuzzer hunts the pass that breaks an
  // invariant, not only the crash that follows.
  (void)odt::runGraphPipeline(*module, odt::Verification::EachPass);
  return 0;
}
