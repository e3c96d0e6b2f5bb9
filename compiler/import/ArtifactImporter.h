//===- ArtifactImporter.h - ORT's artifact trio into one module -*- C++ -*-===//
//
// Imports training_model.onnx, eval_model.onnx and optimizer_model.onnx (any
// of them may be absent) into one module with functions @train, @eval and
// @optimizer. Graph inputs are classified by ONNX Runtime's naming contract
// (docs/ORT-FACTS.md §1): user inputs, parameters (named by the checkpoint
// when one is given, else the inputs that have a gradient buffer),
// `<p>_grad.accumulation.buffer`, `lazy_reset_grad`. The optimizer graph's
// sequences are resolved against the training model's trainable parameters.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_IMPORT_ARTIFACTIMPORTER_H
#define ODT_COMPILER_IMPORT_ARTIFACTIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace odt {

/// A value fixed at compile time for a graph input (odt-compile
/// --input-value): raw little-endian bytes of an ONNX data type.
struct InputValue {
  int32_t dataType;
  std::vector<int64_t> dims;
  std::vector<char> bytes;
};

struct ArtifactPaths {
  std::string train;      // may be empty
  std::string eval;       // may be empty
  std::string optimizer;  // may be empty (requires train)
  std::string checkpoint; // may be empty: parameters are then inferred
  /// Graph inputs of the train and eval graphs that become constants.
  std::map<std::string, InputValue> inputValues;
};

/// Names of a checkpoint's parameters and whether each is trainable.
struct CheckpointParameterNames {
  std::vector<std::pair<std::string, bool>> parameters;
};

/// Reads only the parameter names of an ODTC checkpoint (nominal or full).
mlir::FailureOr<CheckpointParameterNames>
readCheckpointParameterNames(llvm::StringRef path, std::string &error);

/// A parameter's initial value, taken from an initializer of a plain forward
/// model (raw little-endian bytes, ONNX data type, dims).
struct ParameterValue {
  std::string name;
  int32_t dataType;
  std::vector<int64_t> dims;
  std::vector<char> bytes;
};

/// Imports the artifacts. Diagnostics go to the context's handler.
///
/// A plain forward model (an eval model alone, no checkpoint) has no
/// parameter inputs: its floating-point initializers become its parameters
/// (frozen), in initializer order, and their values are returned in
/// `forwardParameters` so the caller can write them as a checkpoint.
/// Integer and boolean initializers stay constants (shapes, axes, indices).
mlir::OwningOpRef<mlir::ModuleOp>
importArtifacts(mlir::MLIRContext *context, const ArtifactPaths &paths,
                std::vector<ParameterValue> *forwardParameters = nullptr);

} // namespace odt

#endif // ODT_COMPILER_IMPORT_ARTIFACTIMPORTER_H
