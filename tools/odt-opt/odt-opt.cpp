//===- odt-opt.cpp - MlirOptMain with odt's dialects and passes -----------===//

#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<odt::onnx::ONNXDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "odt optimizer driver\n", registry));
}
