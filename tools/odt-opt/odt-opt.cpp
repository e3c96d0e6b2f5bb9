//===- odt-opt.cpp - MlirOptMain with odt's dialects and passes -----------===//

#include "codegen/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  odt::registerCompilerPasses();
  mlir::DialectRegistry registry;
  odt::registerCompilerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "odt optimizer driver\n", registry));
}
