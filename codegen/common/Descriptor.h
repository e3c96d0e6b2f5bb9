//===- Descriptor.h - the model descriptor emitted with the code -*- C++
//-*-===//
//
// Builds the flatbuffer the runtime reads to drive the generated code
// (runtime/schema/model.fbs): the parameters, and for each entry point the
// exact order, role, dtype and symbolic shape of its buffers. Built once,
// from the final module: its odt.abi record (AbiRecord.h), written at the
// end of the graph stage and amended by the passes that add arguments.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_DESCRIPTOR_H
#define ODT_CODEGEN_DESCRIPTOR_H

#include "ModelAbi.h"
#include "compiler/export/ExportTemplate.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace odt {

struct ModelDescriptor {
  std::vector<uint8_t> bytes; // flatbuffer, file identifier "ODTM"
  std::string json;           // the same content for people (model.json)
  std::string header;         // C declarations for static linking (model.h)
};

/// Fails, with an error on the module, when it has no odt.abi record. With
/// `exportTemplate` (made from the eval model at the graph stage), the
/// descriptor embeds it for ExportModelForInferencing.
mlir::FailureOr<ModelDescriptor>
buildDescriptor(mlir::ModuleOp module, const std::string &prefix,
                const ExportTemplate *exportTemplate = nullptr);

} // namespace odt

#endif // ODT_CODEGEN_DESCRIPTOR_H
