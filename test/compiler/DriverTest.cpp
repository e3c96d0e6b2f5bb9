// odt::compileArtifacts (codegen/Driver.h), the compiler as a library: the
// same artifacts odt-compile takes, compiled in memory to an object and a
// descriptor, stopped at a stage, and refused with a diagnostic.

#include "codegen/Driver.h"
#include "codegen/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

const std::string kArtifacts =
    std::string(ODT_SHARED_DIR) + "/conformance/ort/training_api/";

odt::ArtifactPaths ortArtifacts() {
  odt::ArtifactPaths paths;
  paths.train = kArtifacts + "training_model.onnx";
  paths.eval = kArtifacts + "eval_model.onnx";
  paths.optimizer = kArtifacts + "adamw.onnx";
  paths.checkpoint = kArtifacts + "checkpoint.ckpt";
  return paths;
}

/// A context with odt's dialects whose diagnostics are collected.
struct Compiler {
  std::string messages() const {
    std::string all;
    for (const std::string &diagnostic : diagnostics)
      all += diagnostic + "\n";
    return all;
  }
  Compiler() {
    odt::registerCompilerPasses();
    mlir::DialectRegistry registry;
    odt::registerCompilerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadAllAvailableDialects();
    context->getDiagEngine().registerHandler(
        [this](mlir::Diagnostic &diag) { diagnostics.push_back(diag.str()); });
  }
  std::unique_ptr<mlir::MLIRContext> context;
  std::vector<std::string> diagnostics;
};

/// Records the phases and notes the driver reports.
struct Recorder : odt::CompileObserver {
  void phase(llvm::StringRef name) override { phases.push_back(name.str()); }
  void note(llvm::StringRef line) override { notes.push_back(line.str()); }
  std::vector<std::string> phases, notes;
};

TEST(Driver, CompilesORTArtifactsToAnObjectAndADescriptor) {
  Compiler compiler;
  odt::CompileOptions options;
  options.prefix = "net";
  odt::CompileOutput model;
  std::string error;
  Recorder recorder;
  ASSERT_TRUE(mlir::succeeded(
      odt::compileArtifacts(*compiler.context, ortArtifacts(), options, model,
                            error, llvm::outs(), &recorder)))
      << error << compiler.messages();
  EXPECT_TRUE(compiler.diagnostics.empty());
  // A relocatable ELF object.
  ASSERT_GT(model.object.size(), 4u);
  EXPECT_EQ(model.object.substr(0, 4), "\x7f"
                                       "ELF");
  // The descriptor names the entry points with the prefix.
  EXPECT_NE(model.header.find("net_train"), std::string::npos);
  EXPECT_NE(model.json.find("\"train\""), std::string::npos);
  EXPECT_TRUE(model.forwardParameters.empty()); // a checkpoint was given
  EXPECT_EQ(recorder.phases,
            (std::vector<std::string>{"import", "graph", "linalg", "llvm",
                                      "codegen"}));
  // One arena line per entry point and how the code was cut.
  ASSERT_EQ(recorder.notes.size(), 4u);
  EXPECT_NE(recorder.notes.back().find("LLVM instructions"), std::string::npos);
  EXPECT_GT(model.summary.instructions, 0u);

  // The object does not depend on the thread count.
  odt::CompileOptions oneThread = options;
  oneThread.threads = 1;
  odt::CompileOutput again;
  ASSERT_TRUE(mlir::succeeded(odt::compileArtifacts(
      *compiler.context, ortArtifacts(), oneThread, again, error)))
      << error;
  EXPECT_EQ(again.object, model.object);
}

TEST(Driver, StopsAtAStageAndPrintsItsIR) {
  Compiler compiler;
  odt::CompileOptions options;
  options.stop = odt::CompileStop::Linalg;
  odt::CompileOutput model;
  std::string error, ir;
  llvm::raw_string_ostream stream(ir);
  ASSERT_TRUE(mlir::succeeded(odt::compileArtifacts(
      *compiler.context, ortArtifacts(), options, model, error, stream)))
      << error << compiler.messages();
  EXPECT_NE(ir.find("linalg.generic"), std::string::npos);
  EXPECT_EQ(ir.find("= onnx."), std::string::npos); // no onnx op is left
  EXPECT_TRUE(model.object.empty());
}

TEST(Driver, RefusesAMissingModelWithADiagnostic) {
  Compiler compiler;
  odt::ArtifactPaths paths = ortArtifacts();
  paths.train = kArtifacts + "no_such_model.onnx";
  odt::CompileOutput model;
  std::string error;
  EXPECT_TRUE(mlir::failed(odt::compileArtifacts(
      *compiler.context, paths, odt::CompileOptions(), model, error)));
  ASSERT_FALSE(compiler.diagnostics.empty());
  EXPECT_NE(compiler.diagnostics.front().find("no_such_model.onnx"),
            std::string::npos)
      << compiler.diagnostics.front();
  EXPECT_TRUE(model.object.empty());
}

TEST(Driver, RefusesAnUnknownTarget) {
  Compiler compiler;
  odt::CompileOptions options;
  options.target.triple = "x86_64-linux-gnu";
  options.target.cpu = "no-such-cpu";
  odt::CompileOutput model;
  std::string error;
  EXPECT_TRUE(mlir::failed(odt::compileArtifacts(
      *compiler.context, ortArtifacts(), options, model, error)));
  std::string all = error;
  for (const std::string &diagnostic : compiler.diagnostics)
    all += diagnostic;
  EXPECT_NE(all.find("unknown CPU 'no-such-cpu'"), std::string::npos) << all;
}

} // namespace
