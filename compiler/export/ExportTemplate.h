//===- ExportTemplate.h - what ExportModelForInferencing needs --*- C++ -*-===//
//
// The runtime exports inference models without protobuf or the compiler
// (runtime/src/OnnxExport.h). What it needs is built here, at compile time,
// and embedded in the model descriptor: the eval model, serialized, with
//  * value_info for every value that can be typed (onnx's shape inference,
//    symbolic dims as dim_param; then the types odt inferred for @eval for
//    values onnx leaves untyped), so that any value can become an output;
//  * external data read into raw_data, so that the model stands alone;
//  * the names of its graph inputs that are parameters, which the runtime
//    turns into initializers holding their current values.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_EXPORT_EXPORTTEMPLATE_H
#define ODT_COMPILER_EXPORT_EXPORTTEMPLATE_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace odt {

struct ExportTemplate {
  /// A serialized onnx.ModelProto.
  std::string model;
  /// Its graph inputs that are parameters, in graph input order.
  std::vector<std::string> parameters;
};

/// Reads the eval model at `evalPath` and builds its export template.
/// `parameterNames` are the model's parameters; `module` holds the imported
/// @eval function whose types fill in what onnx cannot infer (may lack it).
/// Emits errors (unreadable model or external data, a template over 2 GiB).
mlir::FailureOr<ExportTemplate>
buildExportTemplate(mlir::ModuleOp module, llvm::StringRef evalPath,
                    llvm::ArrayRef<std::string> parameterNames);

} // namespace odt

#endif // ODT_COMPILER_EXPORT_EXPORTTEMPLATE_H
