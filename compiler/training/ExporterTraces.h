//===- ExporterTraces.h - what PyTorch's exporter left on nodes -*- C++ -*-===//
//
// torch.onnx.export(dynamo=True) records on each node where it came from
// (metadata_props: the FX node, its module scope, the rewrite rules that
// touched it). Two facts of a training model survive only there:
//  - a BatchNorm module in training mode is written in inference form
//    (BatchNormalization with training_mode 0 and one output), although
//    PyTorch normalizes it with batch statistics;
//  - its default graph optimizer (optimize=True) folds such a BatchNorm
//    into the preceding Conv or Gemm, which leaves nothing to normalize.
//  - its optimizer also merges initializers with equal values into one
//    (LayerNorm weights all start as ones): separate parameters would
//    train as one;
//  - it drops zero biases of Linear and Conv layers (a bias initialized to
//    zero is still trained);
//  - GroupNorm is exported as InstanceNormalization over groups with
//    exporter-made unit scale and zero bias, which are no parameters.
// generate-artifacts reads them so that it trains what the user trained.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_TRAINING_EXPORTERTRACES_H
#define ODT_COMPILER_TRAINING_EXPORTERTRACES_H

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace odt {

/// The value the exporter stored under `key` in the node's metadata_props.
std::optional<std::string> nodeMetadata(const ::onnx::NodeProto &node,
                                        llvm::StringRef key);

/// The FX node a dynamo-exported node came from, as the exporter printed
/// it ("%x : [...] = call_function[target=torch.ops.aten...](args = ...)").
std::optional<std::string> fxNodeText(const ::onnx::NodeProto &node);

/// A node the exporter traced back to a training-mode BatchNorm module.
struct BatchNormTrace {
  std::string node;   ///< the ONNX node's name
  std::string module; ///< the BatchNorm module's name ("stem.1")
};

/// Gives every BatchNormalization node of `graph` that PyTorch ran in
/// training mode (per its FX node) training_mode = 1, as the TorchScript
/// exporter writes it; returns those nodes.
std::vector<BatchNormTrace>
restoreTrainingBatchNorms(::onnx::GraphProto &graph);

/// The nodes into which the exporter's optimizer folded a training-mode
/// BatchNorm (onnxscript's FuseBatchNormInto* rules).
std::vector<BatchNormTrace>
findFoldedTrainingBatchNorms(const ::onnx::GraphProto &graph);

/// Gives each use of an initializer that the exporter merged from several
/// parameters its own copy again, named after the parameter the FX graph
/// used there ("enc.layers.0.norm1.weight"); returns the new names.
std::vector<std::string> untieMergedInitializers(::onnx::GraphProto &graph);

/// Gives back the bias of each Gemm, Conv and ConvTranspose from which the
/// exporter's optimizer removed it because it was zero (a zero-initialized
/// bias is still a parameter PyTorch trains): a zero initializer named
/// after the parameter; returns the new names.
std::vector<std::string> restoreRemovedBiases(::onnx::GraphProto &graph);

/// The attribute generate-artifacts gives a Gather that looks rows up in an
/// nn.Embedding with padding_idx (ONNX has no place for it): the gradient
/// rule leaves that row out, as PyTorch does.
constexpr llvm::StringLiteral kPaddingIndexAttr = "odt.padding_idx";

/// Gives each Gather that PyTorch ran as an embedding with a padding_idx
/// (per its FX node: aten.embedding's third argument) the attribute
/// kPaddingIndexAttr; returns those nodes' names.
std::vector<std::string> markEmbeddingPaddingIndices(::onnx::GraphProto &graph);

/// An initializer that holds a value the FX graph computed (read there as
/// `%name`, not a parameter `%p_...` or buffer `%b_...`): the exporter's
/// optimizer folded the computation into a constant (weight_norm's
/// g * v / ||v||), and `node` is a node that reads it. Values named after
/// an op that only selects or rearranges elements (unsqueeze, slice,
/// transpose, ...) are left out: they train as the elements they hold.
struct FoldedFxValue {
  std::string initializer, node;
};
std::vector<FoldedFxValue> findFoldedFxValues(const ::onnx::GraphProto &graph);

/// Initializers the exporter made itself as constant inputs of its own
/// lowerings (GroupNorm's unit instance-norm scale and zero bias, the
/// attention scale of scaled_dot_product_attention, the one it expands into
/// embedding_bag's unit per-sample weights).
std::vector<std::string> findExporterConstants(const ::onnx::GraphProto &graph);

} // namespace odt

#endif // ODT_COMPILER_TRAINING_EXPORTERTRACES_H
