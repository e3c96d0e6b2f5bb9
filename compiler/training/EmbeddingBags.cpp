//===- EmbeddingBags.cpp - EmbeddingBag loops as segment sums -------------===//

#include "compiler/training/EmbeddingBags.h"

#include "compiler/training/ExporterTraces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace odt {
namespace {

using ::onnx::AttributeProto;
using ::onnx::GraphProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

//===----------------------------------------------------------------------===//
// Reading the graph
//===----------------------------------------------------------------------===//

const AttributeProto *findAttribute(const NodeProto &node,
                                    llvm::StringRef name) {
  for (const AttributeProto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

int64_t intAttribute(const NodeProto &node, llvm::StringRef name,
                     int64_t fallback) {
  const AttributeProto *attribute = findAttribute(node, name);
  return attribute ? attribute->i() : fallback;
}

/// How many Cast or Identity nodes a chain may hold before it is taken for
/// no constant (a hostile graph may even make one a cycle).
constexpr int kMaxChain = 32;

/// The node's input `index`, or "" when it has no such input (a hostile
/// graph may leave any input out).
const std::string &inputOf(const NodeProto &node, int index) {
  static const std::string none;
  return index >= 0 && index < node.input_size() ? node.input(index) : none;
}

/// The node's output `index`, or "".
const std::string &outputOf(const NodeProto &node, int index) {
  static const std::string none;
  return index >= 0 && index < node.output_size() ? node.output(index) : none;
}

/// The integers a tensor holds (int64, int32 or bool), if it is one of those.
std::optional<std::vector<int64_t>> tensorInts(const TensorProto &tensor) {
  std::vector<int64_t> values;
  const std::string &raw = tensor.raw_data();
  switch (tensor.data_type()) {
  case TensorProto::INT64:
    if (tensor.has_raw_data()) {
      values.resize(raw.size() / sizeof(int64_t));
      std::memcpy(values.data(), raw.data(), values.size() * sizeof(int64_t));
    } else {
      values.assign(tensor.int64_data().begin(), tensor.int64_data().end());
    }
    return values;
  case TensorProto::INT32:
    if (tensor.has_raw_data()) {
      for (size_t i = 0; i + sizeof(int32_t) <= raw.size();
           i += sizeof(int32_t)) {
        int32_t value;
        std::memcpy(&value, raw.data() + i, sizeof(value));
        values.push_back(value);
      }
    } else {
      values.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    }
    return values;
  case TensorProto::BOOL:
    if (tensor.has_raw_data()) {
      for (char byte : raw)
        values.push_back(byte != 0);
    } else {
      values.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    }
    return values;
  default:
    return std::nullopt;
  }
}

/// What a graph (a Loop's body, or the main graph) defines: each value's
/// producing node, its constants and initializers; names it does not define
/// are looked up in the enclosing graph.
class Scope {
public:
  Scope(const GraphProto &graph, const Scope *outer = nullptr)
      : graph(graph), outer(outer) {
    for (const NodeProto &node : graph.node())
      for (const std::string &output : node.output())
        producers[output] = &node;
    for (const TensorProto &tensor : graph.initializer())
      initializers[tensor.name()] = &tensor;
    for (const auto &input : graph.input())
      inputs.insert(input.name());
  }

  /// The node of this graph that makes `name`, or null.
  const NodeProto *producer(const std::string &name) const {
    auto it = producers.find(name);
    return it == producers.end() ? nullptr : it->second;
  }

  /// The node of this graph that makes `name` if it is of type `opType`.
  const NodeProto *producer(const std::string &name,
                            llvm::StringRef opType) const {
    const NodeProto *node = producer(name);
    return node && node->op_type() == opType &&
                   (node->domain().empty() || node->domain() == "ai.onnx")
               ? node
               : nullptr;
  }

  /// Whether this graph itself defines `name`.
  bool defines(const std::string &name) const {
    return producers.count(name) || initializers.count(name) ||
           inputs.count(name);
  }

  /// The constant integers `name` holds (a Constant node or an initializer,
  /// here or in an enclosing graph).
  std::optional<std::vector<int64_t>> ints(const std::string &name) const {
    if (const NodeProto *node = producer(name, "Constant")) {
      const AttributeProto *value = findAttribute(*node, "value");
      if (value && value->has_t())
        return tensorInts(value->t());
      if ((value = findAttribute(*node, "value_ints")))
        return std::vector<int64_t>(value->ints().begin(), value->ints().end());
      if ((value = findAttribute(*node, "value_int")))
        return std::vector<int64_t>{value->i()};
      return std::nullopt;
    }
    auto it = initializers.find(name);
    if (it != initializers.end())
      return tensorInts(*it->second);
    if (defines(name) || !outer)
      return std::nullopt;
    return outer->ints(name);
  }

  /// Whether `name` is a constant true (or non-zero) scalar, possibly
  /// through Cast and Identity nodes.
  bool isTrue(const std::string &name, int depth = 0) const {
    if (depth > kMaxChain)
      return false;
    std::optional<std::vector<int64_t>> values = ints(name);
    if (values)
      return values->size() == 1 && (*values)[0] != 0;
    const NodeProto *node = producer(name);
    if (node && (node->op_type() == "Cast" || node->op_type() == "Identity"))
      return isTrue(inputOf(*node, 0), depth + 1);
    return !node && !defines(name) && outer && outer->isTrue(name, depth + 1);
  }

  bool isInts(const std::string &name, std::vector<int64_t> expected) const {
    std::optional<std::vector<int64_t>> values = ints(name);
    return values && *values == expected;
  }

  const GraphProto &graph;
  const Scope *outer;

private:
  std::map<std::string, const NodeProto *> producers;
  std::map<std::string, const TensorProto *> initializers;
  std::set<std::string> inputs;
};

/// The axes of an Unsqueeze, Slice or Reduce node: the attribute of older
/// opsets or the constant input `inputIndex` of newer ones.
std::optional<std::vector<int64_t>> axesOf(const NodeProto &node,
                                           int inputIndex, const Scope &scope) {
  if (const AttributeProto *axes = findAttribute(node, "axes"))
    return std::vector<int64_t>(axes->ints().begin(), axes->ints().end());
  if (node.input_size() > inputIndex && !inputOf(node, inputIndex).empty())
    return scope.ints(inputOf(node, inputIndex));
  return std::nullopt;
}

/// The nodes of a Loop body matched so far.
struct BodyMatch {
  const Scope &body;
  std::set<const NodeProto *> nodes;
  std::string why;

  const NodeProto *take(const std::string &value, llvm::StringRef opType) {
    const NodeProto *node = body.producer(value, opType);
    if (node)
      nodes.insert(node);
    return node;
  }
  bool fail(std::string reason) {
    if (why.empty())
      why = std::move(reason);
    return false;
  }
};

/// What an EmbeddingBag computes, in the graph's values.
struct BagSpec {
  std::string loopName;
  std::string weight;
  std::string indices;
  /// Bag boundaries: bag i is positions [boundaries[i], boundaries[i+1]);
  /// with appendTotal (the dynamo form without include_last_offset) they are
  /// PyTorch's offsets and the last bag ends at the number of indices.
  std::string boundaries;
  bool appendTotal = false;
  std::string perSampleWeights;
  bool mean = false;
  std::optional<int64_t> paddingIdx;
  std::string output;
  /// PyTorch's offsets, one per bag, where the graph shows them (offsetsOf):
  /// the bags' count is then their length, the same symbol.
  std::string offsets;
  /// Whether the form itself makes the indices 1-D (aten::embedding_bag's
  /// contract; a TorchScript body declaring each bag a vector).
  bool flatIndices = false;
  /// Set when every bag is one row of a 2-D ids tensor (an EmbeddingBag
  /// called on [bags, length] ids, whose offsets PyTorch makes as
  /// arange(0, ids.numel(), length)): those ids.
  std::string rowIds;
};

//===----------------------------------------------------------------------===//
// The TorchScript exporter's loop
//===----------------------------------------------------------------------===//

// Its body, for bag i (the loop's iteration number):
//   start = Unsqueeze(Gather(S, i), [0]); end = Unsqueeze(Gather(T, i), [0])
//   rows = Gather(weight, Slice(indices, start, end, [0]))
//   [rows = Mul(rows, Unsqueeze(Slice(per_sample_weights, start, end), [1]))]
//   out[i] = ReduceSum|ReduceMean|ReduceMax(rows, [0], keepdims 0)
// with T = S[1:] and a trip count of len(T) outside the loop, so the bags
// are the consecutive ranges between S's entries.

/// Whether `value` is Unsqueeze(Gather(X, iteration), [0]) for an X defined
/// outside the body; sets `source` to X.
bool matchBound(BodyMatch &match, const std::string &value,
                const std::string &iteration, std::string &source) {
  const NodeProto *unsqueeze = match.take(value, "Unsqueeze");
  if (!unsqueeze)
    return match.fail("a slice bound is not an Unsqueeze");
  if (axesOf(*unsqueeze, 1, match.body) != std::vector<int64_t>{0})
    return match.fail("a slice bound is unsqueezed on another axis");
  const NodeProto *gather = match.take(inputOf(*unsqueeze, 0), "Gather");
  if (!gather || intAttribute(*gather, "axis", 0) != 0 ||
      inputOf(*gather, 1) != iteration ||
      match.body.defines(inputOf(*gather, 0)))
    return match.fail("a slice bound is not an offset picked by the "
                      "iteration number");
  source = inputOf(*gather, 0);
  return true;
}

/// Whether `value` is Slice(X, start, end[, [0][, [1]]]) for an X defined
/// outside the body; sets `source` to X.
bool matchBagSlice(BodyMatch &match, const std::string &value,
                   const std::string &start, const std::string &end,
                   std::string &source) {
  const NodeProto *slice = match.take(value, "Slice");
  if (!slice || slice->input_size() < 3 || inputOf(*slice, 1) != start ||
      inputOf(*slice, 2) != end || match.body.defines(inputOf(*slice, 0)))
    return match.fail("the bag's positions are not one slice between two "
                      "offsets");
  if (slice->input_size() > 3 && !inputOf(*slice, 3).empty() &&
      !match.body.isInts(inputOf(*slice, 3), {0}))
    return match.fail("the bag's slice is not along axis 0");
  if (slice->input_size() > 4 && !inputOf(*slice, 4).empty() &&
      !match.body.isInts(inputOf(*slice, 4), {1}))
    return match.fail("the bag's slice has a step");
  source = inputOf(*slice, 0);
  return true;
}

/// Whether the body's scan output reduces rows gathered through a slice by
/// offsets: the mark of an EmbeddingBag, whether or not the rest fits.
bool looksLikeTorchScriptBag(const Scope &body) {
  const GraphProto &graph = body.graph;
  if (graph.output_size() < 2)
    return false;
  const NodeProto *reduce = body.producer(graph.output(1).name());
  if (!reduce ||
      (reduce->op_type() != "ReduceSum" && reduce->op_type() != "ReduceMean" &&
       reduce->op_type() != "ReduceMax"))
    return false;
  std::string rows = inputOf(*reduce, 0);
  if (const NodeProto *mul = body.producer(rows, "Mul"))
    rows = body.producer(inputOf(*mul, 0), "Gather") ? inputOf(*mul, 0)
                                                     : inputOf(*mul, 1);
  const NodeProto *gather = body.producer(rows, "Gather");
  return gather && body.producer(inputOf(*gather, 1), "Slice");
}

/// Matches the TorchScript exporter's EmbeddingBag loop; returns false with
/// `why` set when the loop is a bag loop of another form.
bool matchTorchScriptBag(const NodeProto &loop, const Scope &outer,
                         const Scope &body, BagSpec &spec, std::string &why) {
  BodyMatch match{body, {}, ""};
  const GraphProto &graph = body.graph;
  auto fail = [&](std::string reason) {
    why = match.why.empty() ? std::move(reason) : match.why;
    return false;
  };
  if (loop.input_size() != 2 || loop.output_size() != 1 ||
      graph.input_size() != 2 || graph.output_size() != 2)
    return fail("the loop carries values from one iteration to the next");
  const std::string &iteration = graph.input(0).name();

  const NodeProto *reduce = body.producer(graph.output(1).name());
  match.nodes.insert(reduce);
  if (reduce->op_type() == "ReduceMax")
    return fail("mode 'max' has no gradient rule in odt (use 'sum' or "
                "'mean')");
  spec.mean = reduce->op_type() == "ReduceMean";
  if (intAttribute(*reduce, "keepdims", 1) != 0 ||
      axesOf(*reduce, 1, body) != std::vector<int64_t>{0})
    return fail("the bag's reduction is not over its rows");

  std::string rows = inputOf(*reduce, 0);
  std::string start, end, weightsSource;
  if (const NodeProto *mul = match.take(rows, "Mul")) {
    bool gatherFirst = body.producer(inputOf(*mul, 0), "Gather") != nullptr;
    rows = inputOf(*mul, gatherFirst ? 0 : 1);
    const NodeProto *unsqueeze =
        match.take(inputOf(*mul, gatherFirst ? 1 : 0), "Unsqueeze");
    if (!unsqueeze || axesOf(*unsqueeze, 1, body) != std::vector<int64_t>{1})
      return fail("the rows are scaled by something other than per-sample "
                  "weights");
    weightsSource = inputOf(*unsqueeze, 0);
  }
  const NodeProto *gather = match.take(rows, "Gather");
  if (!gather || intAttribute(*gather, "axis", 0) != 0 ||
      body.defines(inputOf(*gather, 0)))
    return fail("the rows are not gathered from a weight");
  spec.weight = inputOf(*gather, 0);
  const NodeProto *slice = body.producer(inputOf(*gather, 1), "Slice");
  if (!slice || slice->input_size() < 3)
    return fail("the rows' indices are not a slice");
  std::string startsSource, endsSource;
  if (!matchBound(match, inputOf(*slice, 1), iteration, startsSource) ||
      !matchBound(match, inputOf(*slice, 2), iteration, endsSource) ||
      !matchBagSlice(match, inputOf(*gather, 1), inputOf(*slice, 1),
                     inputOf(*slice, 2), spec.indices))
    return fail("");
  if (!weightsSource.empty() &&
      !matchBagSlice(match, weightsSource, inputOf(*slice, 1),
                     inputOf(*slice, 2), spec.perSampleWeights))
    return fail("");

  // The loop runs while its condition holds: it must stay true (the
  // condition the body passes on, through casts, is the one it was given
  // or a constant true).
  std::string condition = graph.output(0).name();
  for (int depth = 0; depth <= kMaxChain; ++depth) {
    const NodeProto *keep = body.producer(condition);
    if (!keep || (keep->op_type() != "Cast" && keep->op_type() != "Identity"))
      break;
    match.nodes.insert(keep);
    condition = inputOf(*keep, 0);
  }
  bool alwaysTrue =
      outer.isTrue(inputOf(loop, 1)) &&
      (condition == graph.input(1).name() || body.isTrue(condition));
  if (!alwaysTrue)
    return fail("the loop can stop before its trip count");
  for (const NodeProto &node : graph.node())
    if (!match.nodes.count(&node) && node.op_type() != "Constant")
      return fail("its body computes more than the bag (a '" + node.op_type() +
                  "' node)");

  // Outside: ends = starts[1:], and one iteration per end.
  const NodeProto *shift = outer.producer(endsSource, "Slice");
  std::optional<std::vector<int64_t>> shiftEnd =
      shift && shift->input_size() >= 3 ? outer.ints(inputOf(*shift, 2))
                                        : std::nullopt;
  if (!shift || inputOf(*shift, 0) != startsSource ||
      !outer.isInts(inputOf(*shift, 1), {1}) || !shiftEnd ||
      shiftEnd->size() != 1 || (*shiftEnd)[0] < (int64_t(1) << 62) ||
      (shift->input_size() > 3 && !inputOf(*shift, 3).empty() &&
       !outer.isInts(inputOf(*shift, 3), {0})) ||
      (shift->input_size() > 4 && !inputOf(*shift, 4).empty() &&
       !outer.isInts(inputOf(*shift, 4), {1})))
    return fail("a bag does not end where the next one starts");
  const NodeProto *count = outer.producer(inputOf(loop, 0), "Gather");
  const NodeProto *shape =
      count ? outer.producer(inputOf(*count, 0), "Shape") : nullptr;
  if (!shape || inputOf(*shape, 0) != endsSource ||
      !outer.isInts(inputOf(*count, 1), {0}) ||
      intAttribute(*shape, "start", 0) != 0)
    return fail("the loop does not run once per bag");

  // A bag declared a vector: with a matrix weight, its indices are 1-D.
  const auto &bagType = graph.output(1).type();
  spec.flatIndices = bagType.has_tensor_type() &&
                     bagType.tensor_type().has_shape() &&
                     bagType.tensor_type().shape().dim_size() == 1;
  spec.boundaries = startsSource;
  spec.appendTotal = false;
  spec.output = outputOf(loop, 0);
  return true;
}

//===----------------------------------------------------------------------===//
// The dynamo exporter's loop
//===----------------------------------------------------------------------===//

// onnxscript's lowering of aten::embedding_bag builds its result in a tensor
// sequence under Ifs (empty bags, the last bag, padding) whose shape changes
// between PyTorch versions; every node of it carries the FX node's text,
// whose arguments say what the bag computes:
//   %embedding_bag : [...] = call_function[target=torch.ops.aten.
//     embedding_bag.padding_idx](args = (%p_w, %view, %arange, False, 1,
//     False, None, False, None), kwargs = {})
// (weight, indices, offsets, scale_grad_by_freq, mode, sparse,
// per_sample_weights, include_last_offset, padding_idx).

/// Splits "a, [b, c], (d), e" at its top-level commas.
std::vector<std::string> splitTopLevel(llvm::StringRef text) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(text.slice(begin, i).trim().str());
      begin = i + 1;
    }
  }
  if (!text.substr(begin).trim().empty())
    parts.push_back(text.substr(begin).trim().str());
  return parts;
}

/// The text between `open` (at `from`) and its matching closing bracket.
std::optional<llvm::StringRef> bracketed(llvm::StringRef text, size_t from) {
  if (from >= text.size())
    return std::nullopt;
  char open = text[from];
  char close = open == '(' ? ')' : open == '{' ? '}' : ']';
  int depth = 0;
  for (size_t i = from; i < text.size(); ++i) {
    if (text[i] == open)
      ++depth;
    else if (text[i] == close && --depth == 0)
      return text.slice(from + 1, i);
  }
  return std::nullopt;
}

/// The aten::embedding_bag call of an FX node's text, as its arguments by
/// name (and "callee": which of the forward ops it is), or nullopt if the
/// node is no embedding_bag forward.
std::optional<std::map<std::string, std::string>>
embeddingBagArguments(llvm::StringRef fxNode) {
  size_t target = fxNode.find("target=");
  if (target == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef callee =
      fxNode.substr(target + std::strlen("target=")).split(']').first.trim();
  // The forward ops (the backward ones take other arguments).
  if (callee != "torch.ops.aten.embedding_bag.default" &&
      callee != "torch.ops.aten.embedding_bag.padding_idx" &&
      callee != "torch.ops.aten._embedding_bag.default" &&
      callee != "torch.ops.aten._embedding_bag_forward_only.default")
    return std::nullopt;
  static const char *const kNames[] = {"weight",
                                       "indices",
                                       "offsets",
                                       "scale_grad_by_freq",
                                       "mode",
                                       "sparse",
                                       "per_sample_weights",
                                       "include_last_offset",
                                       "padding_idx"};
  std::map<std::string, std::string> arguments = {
      {"callee", callee.str()},
      {"scale_grad_by_freq", "False"},
      {"mode", "0"},
      {"sparse", "False"},
      {"per_sample_weights", "None"},
      {"include_last_offset", "False"},
      {"padding_idx", "None"}};
  size_t args = fxNode.find("args = (", target);
  std::optional<llvm::StringRef> positional =
      args == llvm::StringRef::npos
          ? std::nullopt
          : bracketed(fxNode, args + std::strlen("args = "));
  if (!positional)
    return std::nullopt;
  std::vector<std::string> values = splitTopLevel(*positional);
  for (size_t i = 0; i < values.size() && i < std::size(kNames); ++i)
    arguments[kNames[i]] = values[i];
  size_t kwargs = fxNode.find("kwargs = {", target);
  if (kwargs != llvm::StringRef::npos)
    if (std::optional<llvm::StringRef> named =
            bracketed(fxNode, kwargs + std::strlen("kwargs = ")))
      for (const std::string &entry : splitTopLevel(*named)) {
        auto [key, value] = llvm::StringRef(entry).split(':');
        arguments[key.trim().trim("'\"").str()] = value.trim().str();
      }
  return arguments;
}

/// The ONNX value an FX argument ("%view") names.
std::string fxValueName(llvm::StringRef argument) {
  return argument.starts_with("%") ? argument.drop_front().str() : "";
}

//===----------------------------------------------------------------------===//
// The segment sum
//===----------------------------------------------------------------------===//

/// Appends ONNX nodes with fresh value names.
class NodeWriter {
public:
  NodeWriter(std::set<std::string> &taken, std::string prefix,
             std::vector<NodeProto> &nodes)
      : taken(taken), prefix(std::move(prefix)), nodes(nodes) {}

  std::string fresh(llvm::StringRef hint) {
    std::string name = prefix + "/" + hint.str();
    for (int i = 1; taken.count(name); ++i)
      name = prefix + "/" + hint.str() + "_" + std::to_string(i);
    taken.insert(name);
    return name;
  }

  /// A node of `opType` reading `inputs`; its one output is `output` or a
  /// fresh name from `hint`.
  std::string
  node(llvm::StringRef opType, std::vector<std::string> inputs,
       llvm::StringRef hint,
       const std::function<void(NodeProto &)> &setAttributes = nullptr,
       std::string output = "") {
    NodeProto &node = nodes.emplace_back();
    node.set_op_type(opType.str());
    node.set_name(fresh(hint.str() + "_node"));
    for (std::string &input : inputs)
      node.add_input(std::move(input));
    node.add_output(output.empty() ? fresh(hint) : output);
    if (setAttributes)
      setAttributes(node);
    return outputOf(node, 0);
  }

  std::string int64s(std::vector<int64_t> values, llvm::StringRef hint) {
    return node("Constant", {}, hint, [&](NodeProto &node) {
      AttributeProto *value = node.add_attribute();
      value->set_name("value");
      value->set_type(AttributeProto::TENSOR);
      TensorProto *tensor = value->mutable_t();
      tensor->set_data_type(TensorProto::INT64);
      tensor->add_dims(values.size());
      for (int64_t v : values)
        tensor->add_int64_data(v);
    });
  }

  /// A tensor of `shape` (a 1-D int64 value) filled with `fill`.
  std::string filled(const std::string &shape, TensorProto::DataType type,
                     double fill, llvm::StringRef hint) {
    return node("ConstantOfShape", {shape}, hint, [&](NodeProto &node) {
      AttributeProto *value = node.add_attribute();
      value->set_name("value");
      value->set_type(AttributeProto::TENSOR);
      TensorProto *tensor = value->mutable_t();
      tensor->set_data_type(type);
      tensor->add_dims(1);
      if (type == TensorProto::FLOAT)
        tensor->add_float_data(static_cast<float>(fill));
      else
        tensor->add_int64_data(static_cast<int64_t>(fill));
    });
  }

  static void setInt(NodeProto &node, llvm::StringRef name, int64_t value) {
    AttributeProto *attribute = node.add_attribute();
    attribute->set_name(name.str());
    attribute->set_type(AttributeProto::INT);
    attribute->set_i(value);
  }
  static void setString(NodeProto &node, llvm::StringRef name,
                        llvm::StringRef value) {
    AttributeProto *attribute = node.add_attribute();
    attribute->set_name(name.str());
    attribute->set_type(AttributeProto::STRING);
    attribute->set_s(value.str());
  }

private:
  std::set<std::string> &taken;
  std::string prefix;
  std::vector<NodeProto> &nodes;
};

/// Writes the bag reduction as a segment sum (see the header). Bag i owns
/// the index positions j with boundaries[i] <= j < boundaries[i+1]: the
/// number of boundaries at or before j, less one, is j's bag. Positions
/// before the first boundary, after the last (include_last_offset) or
/// holding padding_idx belong to no bag: their rows are masked to zero and
/// scattered into bag 0, so that every scatter index is in range (and a
/// masked row's gradient is zero). The bags' count is the offsets' length
/// where the graph shows the offsets: the same symbol, so the runtime checks
/// labels against it.
void writeSegmentSum(const BagSpec &spec, NodeWriter &w) {
  auto addAxis = [&](NodeProto &node) { NodeWriter::setInt(node, "axis", 0); };
  auto adding = [&](NodeProto &node) {
    NodeWriter::setString(node, "reduction", "add");
  };
  std::string zero = w.int64s({0}, "zero");
  std::string one = w.int64s({1}, "one");
  std::string flat = w.int64s({-1}, "flat");

  auto toInt64 = [](NodeProto &node) {
    NodeWriter::setInt(node, "to", TensorProto::INT64);
  };
  // PyTorch takes int32 indices and offsets too.
  std::string indices =
      w.node("Cast", {w.node("Reshape", {spec.indices, flat}, "flat_indices")},
             "indices", toInt64);
  std::string count = w.node("Shape", {indices}, "count");
  std::string rows = w.node("Gather", {spec.weight, indices}, "rows", addAxis);
  if (!spec.perSampleWeights.empty()) {
    std::string scale =
        w.node("Reshape", {spec.perSampleWeights, flat}, "sample_weights");
    scale = w.node("Unsqueeze", {scale, one}, "sample_weights_column");
    rows = w.node("Mul", {rows, scale}, "weighted_rows");
  }
  std::string boundaries = w.node(
      "Cast", {w.node("Reshape", {spec.boundaries, flat}, "flat_boundaries")},
      "boundaries", toInt64);
  if (spec.appendTotal)
    boundaries =
        w.node("Concat", {boundaries, count}, "boundaries_and_end", addAxis);
  std::string numBoundaries = w.node("Shape", {boundaries}, "num_boundaries");
  std::string numBags = spec.offsets.empty()
                            ? w.node("Sub", {numBoundaries, one}, "num_bags")
                            : w.node("Shape", {spec.offsets}, "num_bags");

  // bag[j] = #{k : boundaries[k] <= j} - 1, from a running count of the
  // boundaries marked at their positions (clamped to [0, count]: a
  // boundary past the end marks the slot after the last position, and none
  // wraps around as a negative index would).
  std::string countPlusOne = w.node("Add", {count, one}, "count_plus_one");
  std::string marks0 =
      w.filled(countPlusOne, TensorProto::INT64, 0, "marks_zero");
  std::string clamped = w.node(
      "Max", {w.node("Min", {boundaries, count}, "bounds_below_end"), zero},
      "clamped_bounds");
  std::string ones = w.filled(numBoundaries, TensorProto::INT64, 1, "ones");
  std::string marks = w.node("ScatterElements", {marks0, clamped, ones},
                             "marks", [&](NodeProto &node) {
                               addAxis(node);
                               adding(node);
                             });
  std::string running = w.node("CumSum", {marks, zero}, "running");
  running = w.node("Slice", {running, zero, count, zero}, "running_count");
  std::string bag = w.node("Sub", {running, one}, "bag");
  std::string valid =
      w.node("Not", {w.node("Less", {bag, zero}, "before_first")}, "started");
  valid = w.node("And", {valid, w.node("Less", {bag, numBags}, "in_bags")},
                 "in_a_bag");
  if (spec.paddingIdx) {
    std::string padding = w.int64s({*spec.paddingIdx}, "padding_idx");
    std::string isPadding = w.node("Equal", {indices, padding}, "is_padding");
    valid = w.node("And", {valid, w.node("Not", {isPadding}, "not_padding")},
                   "counted");
  }
  std::string target = w.node("Where", {valid, bag, zero}, "target");
  std::string weight = w.node("Cast", {valid}, "weight", [](NodeProto &node) {
    NodeWriter::setInt(node, "to", TensorProto::FLOAT);
  });
  rows = w.node("Mul", {rows, w.node("Unsqueeze", {weight, one}, "mask")},
                "counted_rows");

  // Sums (and sizes) per bag.
  std::string weightShape = w.node("Shape", {spec.weight}, "weight_shape");
  std::string width =
      w.node("Slice", {weightShape, one, w.int64s({2}, "two"), zero}, "width");
  std::string sumShape =
      w.node("Concat", {numBags, width}, "sum_shape", addAxis);
  std::string sums0 = w.filled(sumShape, TensorProto::FLOAT, 0, "sums_zero");
  std::string targetColumn =
      w.node("Unsqueeze", {target, one}, "target_column");
  if (!spec.mean) {
    w.node("ScatterND", {sums0, targetColumn, rows}, "sums", adding,
           spec.output);
    return;
  }
  std::string sums =
      w.node("ScatterND", {sums0, targetColumn, rows}, "sums", adding);
  std::string sizes0 = w.filled(numBags, TensorProto::FLOAT, 0, "sizes_zero");
  std::string sizes = w.node("ScatterElements", {sizes0, target, weight},
                             "sizes", [&](NodeProto &node) {
                               addAxis(node);
                               adding(node);
                             });
  // An empty bag's mean is zero, as in PyTorch: its sum over a size of 1.
  std::string floor = w.filled(one, TensorProto::FLOAT, 1, "size_floor");
  sizes = w.node("Max", {sizes, floor}, "divisor");
  sizes = w.node("Unsqueeze", {sizes, one}, "divisor_column");
  w.node("Div", {sums, sizes}, "bag_means", nullptr, spec.output);
}

//===----------------------------------------------------------------------===//
// Bags of one length
//===----------------------------------------------------------------------===//

/// A dimension of a value's type: a size, a symbol, or unknown.
struct TypeDim {
  std::optional<int64_t> size;
  std::string symbol;
  bool operator==(const TypeDim &other) const {
    return (size && size == other.size) ||
           (!symbol.empty() && symbol == other.symbol);
  }
};

/// The dims of `name`'s type as the graph declares it (its inputs and
/// value_info), if it declares them.
/// The tensor type the graph declares for `name` (its inputs, then
/// value_info), or null.
const ::onnx::TypeProto_Tensor *declaredType(const GraphProto &graph,
                                             const std::string &name) {
  for (const auto *infos : {&graph.input(), &graph.value_info()})
    for (const auto &info : *infos)
      if (info.name() == name && info.type().has_tensor_type())
        return &info.type().tensor_type();
  return nullptr;
}

/// The dims of `name`'s declared type, if the graph declares them.
std::optional<std::vector<TypeDim>> declaredDims(const GraphProto &graph,
                                                 const std::string &name) {
  const ::onnx::TypeProto_Tensor *type = declaredType(graph, name);
  if (!type || !type->has_shape())
    return std::nullopt;
  std::vector<TypeDim> dims;
  for (const auto &dim : type->shape().dim())
    dims.push_back({dim.has_dim_value()
                        ? std::optional<int64_t>(dim.dim_value())
                        : std::nullopt,
                    dim.dim_param()});
  return dims;
}

/// `name` with the Cast nodes that make it skipped.
std::string skipCasts(const Scope &scope, std::string name) {
  for (int depth = 0; depth <= kMaxChain; ++depth) {
    const NodeProto *cast = scope.producer(name, "Cast");
    if (!cast)
      return name;
    name = inputOf(*cast, 0);
  }
  return "";
}

/// Whether `name` is dim `index` of `of`'s shape as a scalar:
/// Gather(Shape(of), index) or Squeeze(Shape(of, start=index, end=index+1)),
/// where `of` may be any value whose declared dim `index` equals `dim`.
bool isShapeDim(const GraphProto &graph, const Scope &scope,
                const std::string &name, int64_t index, const TypeDim &dim) {
  std::string source = skipCasts(scope, name);
  const NodeProto *shape = nullptr;
  if (const NodeProto *gather = scope.producer(source, "Gather")) {
    if (!scope.isInts(inputOf(*gather, 1), {index}))
      return false;
    shape = scope.producer(inputOf(*gather, 0), "Shape");
    if (shape &&
        (intAttribute(*shape, "start", 0) != 0 || findAttribute(*shape, "end")))
      return false;
  } else if (const NodeProto *squeeze = scope.producer(source, "Squeeze")) {
    shape = scope.producer(inputOf(*squeeze, 0), "Shape");
    if (shape && (intAttribute(*shape, "start", 0) != index ||
                  intAttribute(*shape, "end", index + 1) != index + 1))
      return false;
  }
  if (!shape)
    return false;
  std::optional<std::vector<TypeDim>> dims =
      declaredDims(graph, inputOf(*shape, 0));
  return dims && static_cast<int64_t>(dims->size()) > index &&
         (*dims)[index] == dim;
}

/// PyTorch's offsets (one per bag) behind the bags' boundaries: the
/// boundaries themselves where the number of indices is appended later, or
/// the first part of a Concat whose second is the number of indices; "" if
/// neither.
std::string offsetsOf(const Scope &scope, const BagSpec &spec) {
  if (spec.appendTotal)
    return spec.boundaries;
  const NodeProto *concat = scope.producer(spec.boundaries, "Concat");
  if (!concat || concat->input_size() != 2)
    return "";
  // The number of indices: Shape(indices), or its first dim unsqueezed.
  std::string total = inputOf(*concat, 1);
  if (const NodeProto *unsqueeze = scope.producer(total, "Unsqueeze")) {
    const NodeProto *gather = scope.producer(inputOf(*unsqueeze, 0), "Gather");
    total = gather && scope.isInts(inputOf(*gather, 1), {0})
                ? inputOf(*gather, 0)
                : "";
  }
  const NodeProto *shape = scope.producer(total, "Shape");
  if (!shape || inputOf(*shape, 0) != spec.indices)
    return "";
  return inputOf(*concat, 0);
}

/// The 2-D ids whose rows are the bags, if the bags' boundaries are
/// arange(0, ids.numel(), ids.size(1)) (and the number of indices) and the
/// indices are ids flattened: how both exporters write an EmbeddingBag
/// called on [bags, length] ids.
std::string findRowIds(const GraphProto &graph, const Scope &scope,
                       const BagSpec &spec) {
  const NodeProto *flatten = scope.producer(spec.indices, "Reshape");
  if (!flatten || !scope.isInts(inputOf(*flatten, 1), {-1}))
    return "";
  const std::string &ids = inputOf(*flatten, 0);
  std::optional<std::vector<TypeDim>> dims = declaredDims(graph, ids);
  if (!dims || dims->size() != 2 || !(*dims)[1].size || *(*dims)[1].size <= 0)
    return "";
  int64_t length = *(*dims)[1].size;

  std::string offsets = offsetsOf(scope, spec);
  if (offsets.empty())
    return "";
  const NodeProto *range = scope.producer(skipCasts(scope, offsets), "Range");
  if (!range)
    return "";
  if (!scope.isInts(skipCasts(scope, inputOf(*range, 0)), {0}))
    return "";
  std::string delta = skipCasts(scope, inputOf(*range, 2));
  if (!scope.isInts(delta, {length}) &&
      !isShapeDim(graph, scope, delta, 1, (*dims)[1]))
    return "";
  // The limit: ids.numel() (ReduceProd of its shape), or its batch dim
  // times the length.
  std::string limit = skipCasts(scope, inputOf(*range, 1));
  if (const NodeProto *product = scope.producer(limit, "ReduceProd")) {
    const NodeProto *shape = scope.producer(inputOf(*product, 0), "Shape");
    if (shape && inputOf(*shape, 0) == ids &&
        intAttribute(*shape, "start", 0) == 0 && !findAttribute(*shape, "end"))
      return ids;
    return "";
  }
  if (const NodeProto *mul = scope.producer(limit, "Mul"))
    for (int i = 0; i < 2; ++i)
      if (scope.isInts(skipCasts(scope, inputOf(*mul, 1 - i)), {length}) &&
          isShapeDim(graph, scope, inputOf(*mul, i), 0, (*dims)[0]))
        return ids;
  return "";
}

/// Writes bags that are the rows of 2-D ids: the rows gathered as
/// [bags, length, width] and reduced over the length, no scatter at all.
void writeRowReduction(const BagSpec &spec, int64_t opset, NodeWriter &w) {
  std::string one = w.int64s({1}, "one");
  std::string two;
  if (!spec.perSampleWeights.empty() || spec.paddingIdx)
    two = w.int64s({2}, "two");
  std::string rows =
      w.node("Gather", {spec.weight, spec.rowIds}, "rows",
             [](NodeProto &node) { NodeWriter::setInt(node, "axis", 0); });
  std::string idsShape = w.node("Shape", {spec.rowIds}, "ids_shape");
  if (!spec.perSampleWeights.empty()) {
    std::string scale =
        w.node("Reshape", {spec.perSampleWeights, idsShape}, "sample_weights");
    scale = w.node("Unsqueeze", {scale, two}, "sample_weights_column");
    rows = w.node("Mul", {rows, scale}, "weighted_rows");
  }
  auto keepNoDims = [](NodeProto &node) {
    NodeWriter::setInt(node, "keepdims", 0);
  };
  if (!spec.paddingIdx && spec.mean && opset < 18) {
    // ReduceMean takes its axes as an input from opset 18 on only.
    w.node(
        "ReduceMean", {rows}, "bags",
        [&](NodeProto &node) {
          keepNoDims(node);
          AttributeProto *axes = node.add_attribute();
          axes->set_name("axes");
          axes->set_type(AttributeProto::INTS);
          axes->add_ints(1);
        },
        spec.output);
    return;
  }
  if (!spec.paddingIdx) {
    w.node(spec.mean ? "ReduceMean" : "ReduceSum", {rows, one}, "bags",
           keepNoDims, spec.output);
    return;
  }
  // Padding counts in no bag: masked out of the sums and the sizes.
  std::string padding = w.int64s({*spec.paddingIdx}, "padding_idx");
  std::string ids = w.node("Cast", {spec.rowIds}, "ids", [](NodeProto &node) {
    NodeWriter::setInt(node, "to", TensorProto::INT64);
  });
  std::string counted =
      w.node("Not", {w.node("Equal", {ids, padding}, "is_padding")}, "counted");
  std::string mask = w.node("Cast", {counted}, "mask", [](NodeProto &node) {
    NodeWriter::setInt(node, "to", TensorProto::FLOAT);
  });
  rows = w.node("Mul", {rows, w.node("Unsqueeze", {mask, two}, "mask_column")},
                "counted_rows");
  if (!spec.mean) {
    w.node("ReduceSum", {rows, one}, "bags", keepNoDims, spec.output);
    return;
  }
  std::string sums = w.node("ReduceSum", {rows, one}, "sums", keepNoDims);
  std::string sizes = w.node("ReduceSum", {mask, one}, "sizes");
  std::string floor = w.filled(one, TensorProto::FLOAT, 1, "size_floor");
  sizes = w.node("Max", {sizes, floor}, "divisor");
  w.node("Div", {sums, sizes}, "bag_means", nullptr, spec.output);
}

//===----------------------------------------------------------------------===//
// Putting it together
//===----------------------------------------------------------------------===//

/// The names a node reads, its subgraphs' reads of enclosing values
/// included.
void collectReads(const NodeProto &node, std::set<std::string> &reads) {
  for (const std::string &input : node.input())
    if (!input.empty())
      reads.insert(input);
  for (const AttributeProto &attribute : node.attribute()) {
    auto visit = [&](const GraphProto &graph) {
      for (const NodeProto &inner : graph.node())
        collectReads(inner, reads);
      for (const auto &output : graph.output())
        reads.insert(output.name());
    };
    if (attribute.has_g())
      visit(attribute.g());
    for (const GraphProto &graph : attribute.graphs())
      visit(graph);
  }
}

/// A bag found in the graph: what it computes, the node that makes its bags
/// (replaced by the new nodes, written in its place) and its Loop.
struct FoundBag {
  BagSpec spec;
  int position = -1; ///< the node that makes the bags, replaced
  int loop = -1;     ///< the Loop node
};

std::optional<int64_t> parseInt(llvm::StringRef text) {
  int64_t value;
  if (text.trim().getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// The element type of `name` (an initializer or a declared value), if the
/// graph says.
std::optional<int> elementType(const GraphProto &graph,
                               const std::string &name) {
  for (const TensorProto &tensor : graph.initializer())
    if (tensor.name() == name)
      return tensor.data_type();
  if (const ::onnx::TypeProto_Tensor *type = declaredType(graph, name))
    return type->elem_type();
  return std::nullopt;
}

bool findDynamoBag(const GraphProto &graph, const std::string &fxNode,
                   const std::map<std::string, std::string> &arguments,
                   FoundBag &found, std::string &why) {
  // The nodes of the lowering: the loop and its bookkeeping. Only the node
  // that makes the bags is replaced; what else the graph reads of them
  // (two bags over the same indices share their flattening) stays, the
  // rest is dead once the bags are made otherwise.
  std::set<int> group;
  std::set<std::string> produced;
  const NodeProto *loop = nullptr;
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeProto &node = graph.node(i);
    if (fxNodeText(node) != fxNode)
      continue;
    group.insert(i);
    produced.insert(node.output().begin(), node.output().end());
    if (node.op_type() == "Loop" && !loop)
      loop = &node;
  }
  found.spec.loopName =
      loop->name().empty() ? outputOf(*loop, 0) : loop->name();
  auto argument = [&](const char *name) {
    auto it = arguments.find(name);
    return it == arguments.end() ? std::string() : it->second;
  };
  if (argument("scale_grad_by_freq") != "False")
    return why = "scale_grad_by_freq=True is not supported", false;
  std::optional<int64_t> mode = parseInt(argument("mode"));
  if (!mode || *mode < 0 || *mode > 2)
    return why = "its mode '" + argument("mode") + "' is not 0, 1 or 2", false;
  if (*mode == 2)
    return why = "mode 'max' has no gradient rule in odt (use 'sum' or "
                 "'mean')",
           false;
  found.spec.mean = *mode == 1;
  std::string include = argument("include_last_offset");
  if (include != "False" && include != "True")
    return why = "include_last_offset is '" + include + "'", false;
  found.spec.appendTotal = include == "False";
  found.spec.flatIndices = true; // aten::embedding_bag takes 1-D indices

  // The arguments are values made outside the lowering: the graph's
  // inputs, initializers and other nodes' outputs.
  std::set<std::string> outside;
  for (const auto &input : graph.input())
    outside.insert(input.name());
  for (const TensorProto &tensor : graph.initializer())
    outside.insert(tensor.name());
  for (int i = 0; i < graph.node_size(); ++i)
    if (!group.count(i))
      outside.insert(graph.node(i).output().begin(),
                     graph.node(i).output().end());
  auto resolve = [&](const char *name, std::string &value) {
    value = fxValueName(argument(name));
    if (value.empty() || !outside.count(value))
      return why = std::string("its ") + name + " '" + argument(name) +
                   "' is not a value of the graph",
             false;
    return true;
  };
  if (!resolve("indices", found.spec.indices) ||
      !resolve("offsets", found.spec.boundaries))
    return false;
  if (argument("per_sample_weights") != "None" &&
      !resolve("per_sample_weights", found.spec.perSampleWeights))
    return false;

  std::set<std::string> weights;
  for (int i : group) {
    const NodeProto &node = graph.node(i);
    if (node.op_type() == "Gather" && !produced.count(inputOf(node, 0)))
      weights.insert(inputOf(node, 0));
  }
  if (weights.size() != 1)
    return why = "its weight is not the one table its rows are gathered "
                 "from",
           false;
  found.spec.weight = *weights.begin();

  std::string padding = argument("padding_idx");
  if (padding != "None") {
    std::optional<int64_t> index = parseInt(padding);
    if (!index)
      return why = "its padding_idx '" + padding + "' is not a number", false;
    // _embedding_bag's -1 means "none" (nn.EmbeddingBag passes a
    // non-negative index, counted from the end already).
    bool internal =
        llvm::StringRef(argument("callee")).contains("aten._embedding_bag");
    if (*index < 0 && !(internal && *index == -1))
      return why = "its padding_idx " + padding + " is negative", false;
    if (*index >= 0)
      found.spec.paddingIdx = *index;
  }

  // The bags: the sequence of rows the loop built, concatenated.
  for (int i : group) {
    const NodeProto &node = graph.node(i);
    if (node.op_type() != "ConcatFromSequence")
      continue;
    if (found.position >= 0 || intAttribute(node, "axis", 0) != 0 ||
        intAttribute(node, "new_axis", 0) != 0)
      return why = "its bags are not one concatenation of its rows", false;
    found.position = i;
    found.spec.output = outputOf(node, 0);
  }
  if (found.position < 0)
    return why = "its bags are not one concatenation of its rows", false;
  return true;
}

/// Every name a graph and its subgraphs define or declare.
void collectNames(const GraphProto &graph, std::set<std::string> &names) {
  for (const auto &input : graph.input())
    names.insert(input.name());
  for (const auto &info : graph.value_info())
    names.insert(info.name());
  for (const TensorProto &tensor : graph.initializer())
    names.insert(tensor.name());
  for (const NodeProto &node : graph.node()) {
    names.insert(node.name());
    names.insert(node.output().begin(), node.output().end());
    for (const AttributeProto &attribute : node.attribute()) {
      if (attribute.has_g())
        collectNames(attribute.g(), names);
      for (const GraphProto &inner : attribute.graphs())
        collectNames(inner, names);
    }
  }
}

/// The rank `name` has (an initializer's or its declared type's), if known.
std::optional<size_t> knownRank(const GraphProto &graph,
                                const std::string &name) {
  for (const TensorProto &tensor : graph.initializer())
    if (tensor.name() == name)
      return tensor.dims_size();
  if (std::optional<std::vector<TypeDim>> dims = declaredDims(graph, name))
    return dims->size();
  return std::nullopt;
}

/// Why odt cannot write `bag` into a graph of ai.onnx `opset`, or "".
std::string checkBag(const GraphProto &graph, const Scope &scope,
                     const BagSpec &bag, int64_t opset) {
  std::optional<int> type = elementType(graph, bag.weight);
  if (type && *type != TensorProto::FLOAT)
    return "its weight '" + bag.weight +
           "' is not float32 (odt writes the bags in float32)";
  if (knownRank(graph, bag.weight) != std::optional<size_t>(2))
    return "its weight '" + bag.weight + "' is not known to be a matrix";
  // The bag's positions count along flat indices: so the form says, or a
  // Reshape to [-1] makes them, or they are declared 1-D.
  const NodeProto *flatten = scope.producer(bag.indices, "Reshape");
  bool flat = bag.flatIndices ||
              (flatten && scope.isInts(inputOf(*flatten, 1), {-1})) ||
              knownRank(graph, bag.indices) == std::optional<size_t>(1);
  if (!flat)
    return "its indices '" + bag.indices + "' are not known to be 1-D";
  // ScatterND's and ScatterElements' reduction attribute came in opset 16.
  if (bag.rowIds.empty() && opset < 16)
    return "its bags over offsets need opset 16 or newer (ScatterND's "
           "reduction); export with opset_version >= 16";
  return "";
}

} // namespace

bool rewriteEmbeddingBagLoops(GraphProto &graph, int64_t opset,
                              std::vector<EmbeddingBagRewrite> &rewritten,
                              std::string &error) {
  std::vector<FoundBag> bags;
  Scope outer(graph);
  std::set<std::string> seenFxNodes;
  auto refuse = [&](const std::string &node, const std::string &why) {
    error = "node '" + node +
            "': a Loop of the form PyTorch's exporters give an EmbeddingBag, "
            "which odt cannot compile: " +
            why;
    return false;
  };
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeProto &node = graph.node(i);
    if (node.op_type() != "Loop")
      continue;
    if (std::optional<std::string> fxNode = fxNodeText(node)) {
      std::optional<std::map<std::string, std::string>> arguments =
          embeddingBagArguments(*fxNode);
      if (!arguments || !seenFxNodes.insert(*fxNode).second)
        continue;
      FoundBag found;
      found.loop = i;
      std::string why;
      if (!findDynamoBag(graph, *fxNode, *arguments, found, why))
        return refuse(node.name(), why);
      found.spec.rowIds = findRowIds(graph, outer, found.spec);
      found.spec.offsets = offsetsOf(outer, found.spec);
      bags.push_back(std::move(found));
      continue;
    }
    const AttributeProto *body = findAttribute(node, "body");
    if (!body || !body->has_g())
      continue;
    Scope inner(body->g(), &outer);
    if (!looksLikeTorchScriptBag(inner))
      continue;
    FoundBag found;
    std::string why;
    if (!matchTorchScriptBag(node, outer, inner, found.spec, why))
      return refuse(node.name(), why);
    found.spec.loopName = node.name().empty() ? outputOf(node, 0) : node.name();
    found.position = found.loop = i;
    found.spec.rowIds = findRowIds(graph, outer, found.spec);
    found.spec.offsets = offsetsOf(outer, found.spec);
    bags.push_back(std::move(found));
  }
  if (bags.empty())
    return true;
  for (const FoundBag &bag : bags) {
    std::string why = checkBag(graph, outer, bag.spec, opset);
    if (!why.empty())
      return refuse(bag.spec.loopName, why);
  }

  std::set<std::string> taken;
  collectNames(graph, taken);
  std::map<int, std::vector<NodeProto>> inserted;
  std::set<int> replaced;
  for (const FoundBag &bag : bags) {
    NodeWriter writer(taken,
                      bag.spec.loopName + (bag.spec.rowIds.empty()
                                               ? "/segment_sum"
                                               : "/row_reduction"),
                      inserted[bag.position]);
    if (bag.spec.rowIds.empty())
      writeSegmentSum(bag.spec, writer);
    else
      writeRowReduction(bag.spec, opset, writer);
    replaced.insert(bag.position);
  }
  // The new nodes go where the bags were made, so every value they read is
  // defined before them and every reader of the bags comes after.
  std::vector<NodeProto> nodes;
  std::map<int, size_t> kept;    // original index -> index in `nodes`
  std::set<std::string> orphans; // what the replaced nodes read
  for (int i = 0; i < graph.node_size(); ++i) {
    if (replaced.count(i)) {
      collectReads(graph.node(i), orphans);
    } else {
      kept[i] = nodes.size();
      nodes.push_back(graph.node(i));
    }
    auto it = inserted.find(i);
    if (it != inserted.end())
      for (NodeProto &node : it->second)
        nodes.push_back(std::move(node));
  }

  // Drop what only the replaced nodes read (the loops, their offsets'
  // bookkeeping, the constants of the dynamo lowering), and nothing else.
  std::map<std::string, int> readers;
  std::map<std::string, size_t> producers;
  std::vector<std::set<std::string>> reads(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    collectReads(nodes[n], reads[n]);
    for (const std::string &name : reads[n])
      ++readers[name];
    for (const std::string &output : nodes[n].output())
      producers[output] = n;
  }
  for (const auto &output : graph.output())
    ++readers[output.name()];
  std::vector<bool> removed(nodes.size(), false);
  std::set<std::string> gone(orphans); // values nobody reads any more
  std::vector<std::string> pending(orphans.begin(), orphans.end());
  while (!pending.empty()) {
    std::string name = pending.back();
    pending.pop_back();
    auto producer = producers.find(name);
    if (readers[name] > 0 || producer == producers.end() ||
        removed[producer->second])
      continue;
    const NodeProto &node = nodes[producer->second];
    if (llvm::any_of(node.output(), [&](const std::string &output) {
          return readers[output] > 0;
        }))
      continue;
    removed[producer->second] = true;
    gone.insert(node.output().begin(), node.output().end());
    for (const std::string &input : reads[producer->second]) {
      --readers[input];
      gone.insert(input);
      pending.push_back(input);
    }
  }
  // A dynamo lowering whose loop the graph still reads (another of its
  // outputs) would stay a Loop: say so here rather than at import.
  for (const FoundBag &bag : bags) {
    auto loop = kept.find(bag.loop);
    if (loop != kept.end() && !removed[loop->second]) {
      std::string read;
      for (const std::string &output : nodes[loop->second].output())
        if (readers[output] > 0)
          read = output;
      return refuse(bag.spec.loopName,
                    "the graph reads more of it than the bags ('" + read +
                        "')");
    }
  }

  for (const FoundBag &bag : bags)
    rewritten.push_back({bag.spec.loopName, bag.spec.weight,
                         bag.spec.mean ? "mean" : "sum",
                         !bag.spec.rowIds.empty()});
  std::set<std::string> defined;
  graph.clear_node();
  for (size_t n = 0; n < nodes.size(); ++n)
    if (!removed[n]) {
      defined.insert(nodes[n].output().begin(), nodes[n].output().end());
      *graph.add_node() = std::move(nodes[n]);
    }
  // Types and initializers of the values that went with them.
  auto unused = [&](const std::string &name) {
    return gone.count(name) && !defined.count(name) && readers[name] <= 0;
  };
  auto *infos = graph.mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i)
    if (unused(infos->Get(i).name()))
      infos->DeleteSubrange(i, 1);
  std::set<std::string> graphInputs;
  for (const auto &input : graph.input())
    graphInputs.insert(input.name());
  auto *initializers = graph.mutable_initializer();
  for (int i = initializers->size() - 1; i >= 0; --i)
    if (unused(initializers->Get(i).name()) &&
        !graphInputs.count(initializers->Get(i).name()))
      initializers->DeleteSubrange(i, 1);
  return true;
}

} // namespace odt
