//===- Descriptor.h - the model descriptor emitted with the code -*- C++ -*-===//
//
// Builds the flatbuffer the runtime reads to drive the generated code
// (runtime/schema/model.fbs): the parameters, and for each entry point the
// exact order, role, dtype and symbolic shape of its buffers. Built from the
// module after the graph stage, whose entry points carry odt.role, odt.name,
// odt.param, odt.tied and onnx.dims. The argument order is the one
// odt-destination-passing produces: the function's arguments, then one output
// buffer per result not tied to an argument.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_DESCRIPTOR_H
#define ODT_CODEGEN_DESCRIPTOR_H

#include "ModelAbi.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace odt {

struct ModelDescriptor {
  std::vector<uint8_t> bytes; // flatbuffer, file identifier "ODTM"
  std::string json;           // the same content for people (model.json)
  std::string header;         // C declarations for static linking (model.h)
};

/// Emits located errors (e.g. an output whose dims no input determines) and
/// fails on them. With `evalModelPath` (the eval model the module was
/// imported from), the descriptor embeds its export template
/// (compiler/export/ExportTemplate.h) for ExportModelForInferencing.
/// `codegenArguments` (kCodegenArgumentsAttr of the lowered module) lists
/// arguments codegen added to entry points after the graph stage; they
/// follow the graph's arguments.
mlir::FailureOr<ModelDescriptor>
buildDescriptor(mlir::ModuleOp module, const std::string &prefix,
                const std::string &evalModelPath = "",
                mlir::DictionaryAttr codegenArguments = {});

} // namespace odt

#endif // ODT_CODEGEN_DESCRIPTOR_H
