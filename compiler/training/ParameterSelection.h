//===- ParameterSelection.h - which initializers are parameters -*- C++ -*-===//
//
// What a PyTorch user means by "parameters" when generate-artifacts picks
// them from a forward model: the floating-point initializers that are
// weights. Exporters also store hyper-parameters as initializers (the
// dynamo exporter keeps Clip's bounds, Dropout's ratio and scalar constants
// as rank-0 initializers), and BatchNormalization's running statistics are
// buffers; none of those may train.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_TRAINING_PARAMETERSELECTION_H
#define ODT_COMPILER_TRAINING_PARAMETERSELECTION_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

namespace odt {

enum class InitializerKind {
  /// A floating-point tensor of rank >= 1 that some node reads as data: a
  /// parameter by default.
  Weight,
  /// Not floating-point (shapes, indices, masks).
  NotFloat,
  /// A rank-0 float: a constant the exporter stored (a Clip bound, a scale).
  Scalar,
  /// A BatchNormalization running mean or variance: a buffer.
  RunningStatistic,
  /// Read only where an op takes settings, not data (Clip's bounds,
  /// Dropout's ratio, Resize's scales, Pad's value, comparisons).
  Setting,
  /// Read by no node.
  Unused,
  /// Made by the exporter for its own lowering of a module (ExporterTraces).
  ExporterConstant,
};

/// Why an initializer of `kind` is not a parameter, for the printed choice.
llvm::StringRef describeInitializerKind(InitializerKind kind);

/// Classifies every initializer of `graph` (uses inside subgraphs, such as
/// a Loop's body, count; Identity and Cast pass a use on to their readers).
llvm::StringMap<InitializerKind>
classifyInitializers(const ::onnx::GraphProto &graph);

/// Whether `pattern` is a glob (has *, ? or [) rather than a name.
bool isGlobPattern(llvm::StringRef pattern);

} // namespace odt

#endif // ODT_COMPILER_TRAINING_PARAMETERSELECTION_H
