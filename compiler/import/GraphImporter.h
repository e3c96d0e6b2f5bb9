//===- GraphImporter.h - ONNX graphs into the onnx dialect ------*- C++ -*-===//
//
// Imports one ONNX graph as a func.func of onnx ops. Every node becomes the op
// `onnx.<OpType>` (ai.onnx) or `onnx.ms.<OpType>` (com.microsoft) built
// generically: operands in ONNX order (absent optional inputs are
// onnx.NoValue), attributes converted by their ONNX type under their ONNX
// names. Types and symbolic shapes are inferred node by node as the graph is
// built, so every diagnostic is located at the node that caused it.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_IMPORT_GRAPHIMPORTER_H
#define ODT_COMPILER_IMPORT_GRAPHIMPORTER_H

#include "compiler/training/Roles.h"
#include "dialects/onnx/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class TensorProto;
class TypeProto;
} // namespace onnx

namespace odt {

/// A graph input of sequence type expanded into one argument per element.
struct SequenceExpansion {
  /// Element names (for argument names and roles), in order.
  std::vector<std::string> elementNames;
  /// The type of each element.
  std::vector<mlir::RankedTensorType> elementTypes;
  /// The symbolic dims of each element (a name or a size per dim).
  std::vector<std::vector<std::string>> elementDims;
  ArgRole role = ArgRole::Parameter;
  /// Parameter index of each element.
  std::vector<int> parameterIndices;
};

struct GraphImportOptions {
  /// The file the model came from, for locations and external data.
  std::string sourcePath;
  /// Role and parameter index (or -1) of each tensor graph input.
  std::function<std::pair<ArgRole, int>(llvm::StringRef name)> classifyInput;
  /// Role of each graph output.
  std::function<ArgRole(llvm::StringRef name)> classifyOutput;
  /// Expansions of sequence-typed graph inputs, by input name.
  std::map<std::string, SequenceExpansion> sequences;
  /// Initializers that become parameters (arguments after the graph
  /// inputs, role parameter) instead of constants: (name, parameter index).
  std::vector<std::pair<std::string, int>> initializerParameters;
  /// Record each node's output names on its op (kResultNamesAttr), so an
  /// exported graph keeps them (generate-artifacts). Off for compiling: the
  /// names would keep CSE from merging identical nodes.
  bool keepValueNames = false;
};

/// Imports `model`'s graph as function `funcName` in `module`. Emits located
/// diagnostics and returns failure on unsupported operators (all of them are
/// reported at once), bad attributes, types or shapes.
mlir::FailureOr<mlir::func::FuncOp>
importGraph(const ::onnx::ModelProto &model, mlir::ModuleOp module,
            llvm::StringRef funcName, const GraphImportOptions &options);

/// An ONNX tensor (initializer or attribute) as an elements attribute; reads
/// external data relative to `sourcePath`. Emits errors at `loc`.
mlir::FailureOr<mlir::ElementsAttr>
convertTensorProto(mlir::MLIRContext *context,
                   const ::onnx::TensorProto &tensor,
                   llvm::StringRef sourcePath, mlir::Location loc);

/// The element count of a tensor of `shape` whose elements take
/// `elementBytes` each, or nullopt when a dim is negative or the count or its
/// byte size does not fit in int64_t.
std::optional<int64_t> checkedElementCount(llvm::ArrayRef<int64_t> shape,
                                           int64_t elementBytes);

/// The bytes of a tensor stored outside the model (data_location EXTERNAL),
/// for a model read from `sourcePath`. Models come from strangers: the data
/// must lie in a regular file inside the model's folder (a relative location
/// without "..", and no symbolic link leading out of it), and the offset and
/// length must lie within that file. Without a length entry,
/// `defaultLength` bytes are read, or the rest of the file.
mlir::FailureOr<std::string>
readExternalData(const ::onnx::TensorProto &tensor, llvm::StringRef sourcePath,
                 std::optional<uint64_t> defaultLength, mlir::Location loc);

/// How many tensors this process has read from external data files: an
/// output made from them depends on files the model only names.
unsigned getExternalDataReadCount();

/// The MLIR element type of an ONNX TensorProto.DataType, or null.
mlir::Type convertElementType(mlir::MLIRContext *context, int32_t dataType);

/// The ONNX TensorProto.DataType of an MLIR element type, or 0.
int32_t getONNXDataType(mlir::Type elementType);

/// The op name for an ONNX (domain, op_type), e.g. "onnx.ms.ReluGrad"; empty
/// for domains odt does not know.
std::string getOpName(llvm::StringRef domain, llvm::StringRef opType);

} // namespace odt

#endif // ODT_COMPILER_IMPORT_GRAPHIMPORTER_H
