//===- ModelExporter.h - onnx dialect functions to ONNX graphs --*- C++ -*-===//
//
// The inverse of the importer: a func.func of onnx ops becomes an ONNX
// GraphProto. `onnx.<OpType>` is a node of the default domain,
// `onnx.ms.<OpType>` one of com.microsoft; attributes are written under their
// names with the ONNX type their MLIR kind implies (integer -> INT, float ->
// FLOAT, string -> STRING, i64/f32 arrays -> INTS/FLOATS, string arrays ->
// STRINGS, elements -> TENSOR); onnx.NoValue operands are empty input names;
// onnx.Constant ops become initializers. Graph inputs and outputs take their
// names from the `odt.name` argument and result attributes and their dims
// from `onnx.dims` (run shape inference first); other values get names from
// a caller's map or fresh ones.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_EXPORT_MODELEXPORTER_H
#define ODT_COMPILER_EXPORT_MODELEXPORTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace onnx {
class GraphProto;
class ModelProto;
class TensorProto;
} // namespace onnx

namespace odt {

namespace onnx {
class ShapeContext;
}

struct GraphExportOptions {
  /// Names for intermediate values (e.g. `<p>_grad`); others get fresh ones.
  llvm::DenseMap<mlir::Value, std::string> valueNames;
  /// Symbolic shapes of the function's values: when given, every
  /// intermediate value gets a value_info with its dims (symbols by name).
  /// ORT's gradient kernels need it: MaxPoolGrad sizes its output from the
  /// value_info of that output.
  const onnx::ShapeContext *shapes = nullptr;
};

/// Writes `func` as the graph of `model` (replacing it). Emits located
/// errors and fails on ops outside the onnx dialect, attributes without an
/// ONNX type and unranked types at the boundary.
mlir::LogicalResult exportFunction(mlir::func::FuncOp func,
                                   const GraphExportOptions &options,
                                   ::onnx::GraphProto &graph);

/// An elements attribute as an ONNX tensor named `name` (raw data).
mlir::LogicalResult exportElements(mlir::Attribute value, llvm::StringRef name,
                                   ::onnx::TensorProto &tensor);

/// Serializes `model` to `path` atomically (a temporary file, then a
/// rename). Models over protobuf's 2 GiB limit are refused: move large
/// initializers to external data first (moveToExternalData).
mlir::LogicalResult writeModel(const ::onnx::ModelProto &model,
                               llvm::StringRef path, std::string &error);

/// Moves every initializer of at least `threshold` bytes into the file
/// `dataFileName` next to the model (written to `dataPath` through a
/// temporary file; the caller renames it into place), recording location,
/// offset and length as ONNX external data. Offsets are 64-byte aligned.
/// Writes no file when no initializer is that large.
mlir::LogicalResult moveToExternalData(::onnx::ModelProto &model,
                                       llvm::StringRef dataFileName,
                                       llvm::StringRef dataPath,
                                       uint64_t threshold, std::string &error);

} // namespace odt

#endif // ODT_COMPILER_EXPORT_MODELEXPORTER_H
