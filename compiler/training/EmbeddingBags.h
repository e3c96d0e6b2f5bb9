//===- EmbeddingBags.h - EmbeddingBag loops as segment sums -----*- C++ -*-===//
//
// Both of PyTorch's ONNX exporters write nn.EmbeddingBag (and
// F.embedding_bag) as an ONNX Loop over the bags: each iteration slices the
// bag's rows out of the indices by the offsets, gathers them from the
// weight and reduces them. The TorchScript exporter's body is one Slice,
// Gather and Reduce; the dynamo exporter's (onnxscript's) also appends
// each row to a tensor sequence under nested Ifs for empty and last bags.
// odt compiles no control flow, and a loop over the batch would also be a
// poor kernel, so generate-artifacts recognises these loops and writes the
// same reduction as one segment sum: the bag of every index position from
// a cumulative count of the offsets, the rows scattered (added) into their
// bags, divided by each bag's size for mode "mean". Every op of it has a
// gradient rule, so the weight trains as in PyTorch. Bags that are the rows
// of 2-D ids (an EmbeddingBag called on [bags, length] ids: PyTorch's
// offsets are then arange(0, numel, length)) need none of that: their rows
// are gathered as [bags, length, width] and reduced over the length.
//
// The segment sum's cost: odt lowers CumSum as a scan (linear in the
// number of indices), ScatterElements as a gather (bags times indices) and
// ScatterND as a sequential loop (one GPU thread in a GPU build), fine for
// the bags of a device's batch but not for thousands of bags over hundreds
// of thousands of indices per step.
//
// Recognised: modes "sum" and "mean", per-sample weights, include_last_offset,
// padding_idx (dynamo; the TorchScript exporter refuses it), bags of any
// length including empty ones (a zero row, as PyTorch gives), int32 or int64
// indices and offsets. Anything else that comes from an EmbeddingBag (mode
// "max"; scale_grad_by_freq where the export records it, which only the
// dynamo exporter does; a body of another shape; a weight that is not a
// float32 matrix; bags over offsets below opset 16) is an error naming the
// node, and the graph is left as it was.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_TRAINING_EMBEDDINGBAGS_H
#define ODT_COMPILER_TRAINING_EMBEDDINGBAGS_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace odt {

/// One EmbeddingBag that was rewritten.
struct EmbeddingBagRewrite {
  std::string node;   ///< the Loop node's name
  std::string weight; ///< the weight's value name
  std::string mode;   ///< "sum" or "mean"
  bool rowsOfIds;     ///< written as a reduction over the rows of 2-D ids
};

/// Replaces every EmbeddingBag loop of `graph` (a model of ai.onnx `opset`)
/// by ops of that opset without a loop. Returns
/// false with `error` set (naming the node, saying why) when the graph has
/// an EmbeddingBag loop that cannot be rewritten; the graph is then left as
/// it was.
bool rewriteEmbeddingBagLoops(::onnx::GraphProto &graph, int64_t opset,
                              std::vector<EmbeddingBagRewrite> &rewritten,
                              std::string &error);

} // namespace odt

#endif // ODT_COMPILER_TRAINING_EMBEDDINGBAGS_H
