//===- ExporterTraces.cpp - what PyTorch's exporter left on nodes ---------===//

#include "compiler/training/ExporterTraces.h"

#include "google/protobuf/unknown_field_set.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace odt {
namespace {

// Keys torch.onnx (2.5 and later) writes into NodeProto.metadata_props.
constexpr llvm::StringLiteral kFxNodeKey = "pkg.torch.onnx.fx_node";
constexpr llvm::StringLiteral kNameScopesKey = "pkg.torch.onnx.name_scopes";
constexpr llvm::StringLiteral kRewriteRuleKey =
    "pkg.onnxscript.rewriter.rule_name";

/// NodeProto.metadata_props (field 9 since ONNX 1.16): Debian's ONNX
/// schema predates it, so protobuf keeps the entries as unknown fields.
constexpr int kNodeMetadataField = 9;

} // namespace

std::optional<std::string> nodeMetadata(const ::onnx::NodeProto &node,
                                        llvm::StringRef key) {
  const google::protobuf::UnknownFieldSet &unknown =
      node.GetReflection()->GetUnknownFields(node);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField &field = unknown.field(i);
    if (field.number() != kNodeMetadataField ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      continue;
    ::onnx::StringStringEntryProto entry;
    if (entry.ParseFromString(field.length_delimited()) && entry.key() == key)
      return entry.value();
  }
  return std::nullopt;
}

std::optional<std::string> fxNodeText(const ::onnx::NodeProto &node) {
  return nodeMetadata(node, kFxNodeKey);
}

namespace {

/// Whether the FX node is a batch norm that normalizes with batch
/// statistics. Its text reads like
///   %x : [...] = call_function[target=torch.ops.aten.
///     _native_batch_norm_legit_functional.default](args = (%in, %w, %b,
///     %mean, %var, True, 0.1, 1e-05), kwargs = {})
/// where the `training` argument follows the running statistics (or the
/// bias, for the no_stats variant, which always uses batch statistics).
bool isTrainingBatchNorm(llvm::StringRef fxNode) {
  size_t target = fxNode.find("target=");
  if (target == llvm::StringRef::npos)
    return false;
  llvm::StringRef callee = fxNode.substr(target).split(']').first;
  if (!callee.contains("batch_norm") || callee.contains("no_training"))
    return false;
  constexpr llvm::StringLiteral kArgs = "args = (";
  size_t open = fxNode.find(kArgs, target);
  if (open == llvm::StringRef::npos)
    return false;
  llvm::StringRef args = fxNode.substr(open + kArgs.size()).split(')').first;
  llvm::SmallVector<llvm::StringRef> parts;
  args.split(parts, ',');
  size_t trainingIndex = callee.contains("no_stats") ? 3 : 5;
  return parts.size() > trainingIndex && parts[trainingIndex].trim() == "True";
}

/// The module a node came from: the last scope before the op's own
/// ("['', 'stem', 'stem.1', '_native_batch_norm_legit_functional']" ->
/// "stem.1").
std::string moduleName(const ::onnx::NodeProto &node) {
  std::optional<std::string> scopes = nodeMetadata(node, kNameScopesKey);
  if (!scopes)
    return "";
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(*scopes).trim("[] ").split(parts, ',');
  if (parts.size() < 2)
    return "";
  return parts[parts.size() - 2].trim().trim("'\"").str();
}

} // namespace

std::vector<BatchNormTrace>
restoreTrainingBatchNorms(::onnx::GraphProto &graph) {
  std::vector<BatchNormTrace> restored;
  for (::onnx::NodeProto &node : *graph.mutable_node()) {
    if (node.op_type() != "BatchNormalization" ||
        !(node.domain().empty() || node.domain() == "ai.onnx"))
      continue;
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    if (!fxNode || !isTrainingBatchNorm(*fxNode))
      continue;
    ::onnx::AttributeProto *mode = nullptr;
    for (::onnx::AttributeProto &attribute : *node.mutable_attribute())
      if (attribute.name() == "training_mode")
        mode = &attribute;
    if (mode && mode->i() != 0)
      continue;
    if (!mode) {
      mode = node.add_attribute();
      mode->set_name("training_mode");
      mode->set_type(::onnx::AttributeProto::INT);
    }
    mode->set_i(1);
    restored.push_back({node.name(), moduleName(node)});
  }
  return restored;
}

std::vector<BatchNormTrace>
findFoldedTrainingBatchNorms(const ::onnx::GraphProto &graph) {
  std::vector<BatchNormTrace> folded;
  for (const ::onnx::NodeProto &node : graph.node()) {
    std::optional<std::string> rules = nodeMetadata(node, kRewriteRuleKey);
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    if (rules && llvm::StringRef(*rules).contains("FuseBatchNormInto") &&
        fxNode && isTrainingBatchNorm(*fxNode))
      folded.push_back({node.name(), moduleName(node)});
  }
  return folded;
}

namespace {

/// The FX parameter and buffer names (p_..., b_...) an FX node reads.
std::vector<std::string> fxParameters(llvm::StringRef fxNode) {
  std::vector<std::string> names;
  static const std::regex pattern("%([pb]_[A-Za-z0-9_]+)");
  std::string text = fxNode.str();
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end;
       it != end; ++it)
    names.push_back((*it)[1].str());
  return names;
}

/// The FX name of a parameter or buffer ("enc.norm.weight" ->
/// "p_enc_norm_weight").
std::string fxName(llvm::StringRef prefix, llvm::StringRef dotted) {
  std::string name = prefix.str() + dotted.str();
  for (char &c : name)
    if (c == '.')
      c = '_';
  return name;
}

/// The last dotted component ("weight" of "enc.norm.weight").
llvm::StringRef lastComponent(llvm::StringRef name) {
  return name.rsplit('.').second.empty() ? name : name.rsplit('.').second;
}

} // namespace

namespace {

/// The dotted name of FX parameter `token` ("p_enc_layers_0_norm1_weight")
/// read in module `module` ("enc.layers.0.norm1"): the module path plus
/// what follows its underscored form in the token ("weight"); the token
/// without its prefix when the module does not prefix it.
std::string dottedName(llvm::StringRef token, llvm::StringRef module) {
  llvm::StringRef name = token.drop_front(2);
  std::string scope = fxName("", module);
  if (!module.empty() && name.starts_with(scope + "_"))
    return module.str() + "." + name.drop_front(scope.size() + 1).str();
  return name.str();
}

/// The FX parameter that input `index` of `node` (an initializer named
/// `name` of rank `rank`) stands for: its own token when the FX node read
/// it by that name, else the one token of the node that fits it (same last
/// component for a named initializer; for one the exporter named, a weight
/// when it has rank >= 2, a bias otherwise) and that no other initializer
/// input of the node claims by name. Empty when no single token fits.
std::string ownerToken(const ::onnx::NodeProto &node, int index,
                       llvm::StringRef name, int rank,
                       const std::set<std::string> &tokens,
                       const llvm::StringMap<int> &initializerIndex) {
  for (llvm::StringRef prefix : {"p_", "b_"})
    if (tokens.count(fxName(prefix, name)))
      return fxName(prefix, name);
  std::set<std::string> claimed;
  for (int i = 0; i < node.input_size(); ++i)
    if (i != index && initializerIndex.count(node.input(i)))
      for (llvm::StringRef prefix : {"p_", "b_"})
        claimed.insert(fxName(prefix, node.input(i)));
  llvm::StringRef suffix = lastComponent(name);
  bool named = suffix != name;
  std::string found;
  for (const std::string &token : tokens) {
    if (claimed.count(token))
      continue;
    llvm::StringRef t(token);
    bool fits =
        named ? t.ends_with("_" + suffix.str())
              : (rank >= 2 ? t.ends_with("_weight") : t.ends_with("_bias"));
    if (!fits)
      continue;
    if (!found.empty())
      return "";
    found = token;
  }
  return found;
}

} // namespace

std::vector<std::string> untieMergedInitializers(::onnx::GraphProto &graph) {
  llvm::StringMap<int> initializerIndex;
  for (int i = 0; i < graph.initializer_size(); ++i)
    initializerIndex[graph.initializer(i).name()] = i;
  // Every use of an initializer, with the FX parameter it stands for there.
  struct Use {
    int node, input;
    std::string owner, module;
  };
  llvm::StringMap<std::vector<Use>> uses;
  for (int n = 0; n < graph.node_size(); ++n) {
    const ::onnx::NodeProto &node = graph.node(n);
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    if (!fxNode)
      continue;
    std::vector<std::string> list = fxParameters(*fxNode);
    std::set<std::string> tokens(list.begin(), list.end());
    if (tokens.empty())
      continue;
    for (int i = 0; i < node.input_size(); ++i) {
      auto found = initializerIndex.find(node.input(i));
      if (found == initializerIndex.end())
        continue;
      const ::onnx::TensorProto &tensor = graph.initializer(found->second);
      std::string owner = ownerToken(node, i, tensor.name(), tensor.dims_size(),
                                     tokens, initializerIndex);
      if (!owner.empty())
        uses[tensor.name()].push_back({n, i, owner, moduleName(node)});
    }
  }
  // An initializer that stands for several parameters was merged by the
  // exporter (equal initial values: LayerNorm's ones, cloned layers): the
  // first parameter keeps it, each other one gets its own copy. A parameter
  // used in several places (tied weights) has one token and stays shared.
  std::vector<std::string> created;
  for (const ::onnx::TensorProto &tensor : std::vector<::onnx::TensorProto>(
           graph.initializer().begin(), graph.initializer().end())) {
    auto it = uses.find(tensor.name());
    if (it == uses.end())
      continue;
    std::string first;
    std::map<std::string, std::string> copies; // token -> copy name
    for (const Use &use : it->second) {
      if (first.empty() || use.owner == first) {
        first = use.owner;
        continue;
      }
      auto copy = copies.find(use.owner);
      if (copy == copies.end()) {
        std::string dotted = dottedName(use.owner, use.module);
        bool named = lastComponent(tensor.name()) != tensor.name();
        std::string name = named ? dotted : tensor.name() + "@" + dotted;
        if (initializerIndex.count(name))
          name += "@" + std::to_string(created.size());
        ::onnx::TensorProto duplicate = tensor;
        duplicate.set_name(name);
        initializerIndex[name] = graph.initializer_size();
        *graph.add_initializer() = duplicate;
        created.push_back(name);
        copy = copies.emplace(use.owner, name).first;
      }
      graph.mutable_node(use.node)->set_input(use.input, copy->second);
    }
  }
  return created;
}

std::vector<std::string> restoreRemovedBiases(::onnx::GraphProto &graph) {
  llvm::StringMap<int> initializerIndex;
  for (int i = 0; i < graph.initializer_size(); ++i)
    initializerIndex[graph.initializer(i).name()] = i;
  std::vector<std::string> restored;
  for (::onnx::NodeProto &node : *graph.mutable_node()) {
    std::optional<std::string> rules = nodeMetadata(node, kRewriteRuleKey);
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    if (!rules || !fxNode ||
        !llvm::StringRef(*rules).contains("RemoveOptionalBiasFrom"))
      continue;
    llvm::StringRef op = node.op_type();
    if ((op != "Gemm" && op != "Conv" && op != "ConvTranspose") ||
        node.input_size() != 2)
      continue;
    std::string token;
    for (const std::string &candidate : fxParameters(*fxNode))
      if (llvm::StringRef(candidate).ends_with("_bias"))
        token = candidate;
    auto weight = initializerIndex.find(node.input(1));
    if (token.empty() || weight == initializerIndex.end())
      continue;
    const ::onnx::TensorProto &w = graph.initializer(weight->second);
    // The bias has one value per output feature or channel.
    int64_t size = -1;
    if (op == "Gemm") {
      bool transB = false;
      for (const auto &attribute : node.attribute())
        if (attribute.name() == "transB")
          transB = attribute.i() != 0;
      if (w.dims_size() == 2)
        size = w.dims(transB ? 0 : 1);
    } else if (op == "Conv") {
      if (w.dims_size() >= 1)
        size = w.dims(0);
    } else {
      int64_t group = 1;
      for (const auto &attribute : node.attribute())
        if (attribute.name() == "group")
          group = attribute.i();
      if (w.dims_size() >= 2)
        size = w.dims(1) * group;
    }
    if (size < 1)
      continue;
    std::string name = dottedName(token, moduleName(node));
    if (!initializerIndex.count(name)) {
      ::onnx::TensorProto bias;
      bias.set_name(name);
      bias.set_data_type(w.data_type());
      bias.add_dims(size);
      size_t elementBytes = w.data_type() == ::onnx::TensorProto::DOUBLE  ? 8
                            : w.data_type() == ::onnx::TensorProto::FLOAT ? 4
                                                                          : 2;
      bias.set_raw_data(std::string(size * elementBytes, '\0'));
      initializerIndex[name] = graph.initializer_size();
      *graph.add_initializer() = bias;
      restored.push_back(name);
    }
    node.add_input(name);
  }
  return restored;
}

/// A float32 tensor of one element that is 0 or 1: what torch.ones and
/// torch.zeros become before the exporter broadcasts them.
static bool isUnitFill(const ::onnx::TensorProto &tensor) {
  int64_t elements = 1;
  for (int64_t dim : tensor.dims())
    elements *= dim;
  if (elements != 1 || tensor.data_type() != ::onnx::TensorProto::FLOAT)
    return false;
  float value;
  if (tensor.float_data_size() == 1)
    value = tensor.float_data(0);
  else if (tensor.raw_data().size() == sizeof(float))
    std::memcpy(&value, tensor.raw_data().data(), sizeof(float));
  else
    return false;
  return value == 0.0f || value == 1.0f;
}

std::vector<std::string>
markEmbeddingPaddingIndices(::onnx::GraphProto &graph) {
  // "...aten.embedding.default](args = (%p_embed_weight, %input_ids, 0)";
  // F.embedding passes -1 for none, and a negative padding_idx already
  // counted from the end.
  static const std::regex embedding(
      "aten\\.embedding\\.default\\]\\(args = \\(%[A-Za-z0-9_]+, "
      "%[A-Za-z0-9_]+, ([0-9]+)[,)]");
  std::vector<std::string> marked;
  for (::onnx::NodeProto &node : *graph.mutable_node()) {
    if (node.op_type() != "Gather" ||
        !(node.domain().empty() || node.domain() == "ai.onnx"))
      continue;
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    std::smatch match;
    if (!fxNode || !std::regex_search(*fxNode, match, embedding))
      continue;
    ::onnx::AttributeProto *attr = node.add_attribute();
    attr->set_name(kPaddingIndexAttr.str());
    attr->set_type(::onnx::AttributeProto::INT);
    attr->set_i(std::stoll(match[1].str()));
    marked.push_back(node.name());
  }
  return marked;
}

std::vector<FoldedFxValue> findFoldedFxValues(const ::onnx::GraphProto &graph) {
  llvm::StringSet<> initializers;
  for (const ::onnx::TensorProto &tensor : graph.initializer())
    initializers.insert(tensor.name());
  std::vector<FoldedFxValue> folded;
  llvm::StringSet<> seen;
  static const std::regex argument("%([A-Za-z_][A-Za-z0-9_]*)");
  for (const ::onnx::NodeProto &node : graph.node()) {
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    if (!fxNode)
      continue;
    // The arguments: what follows "args = (" (the text before names the
    // node's own result).
    size_t args = fxNode->find("args = (");
    if (args == std::string::npos)
      continue;
    std::string text = fxNode->substr(args);
    for (std::sregex_iterator it(text.begin(), text.end(), argument), end;
         it != end; ++it) {
      std::string name = (*it)[1].str();
      llvm::StringRef ref(name);
      if (ref.starts_with("p_") || ref.starts_with("b_") ||
          !initializers.contains(name) ||
          !llvm::is_contained(node.input(), name) || !seen.insert(name).second)
        continue;
      // A value that only selects or rearranges a parameter's elements
      // (the rows of a position table that a static sequence reads,
      // unsqueezed) trains as those elements do; one computed from them
      // (weight_norm's mul) does not. The FX name is the last op's.
      static const std::regex layoutOnly(
          "(unsqueeze|squeeze|slice|select|t|transpose|permute|view|"
          "reshape|_unsafe_view|expand|clone|contiguous|alias|getitem|"
          "detach|index_select)(_[0-9]+)?");
      if (std::regex_match(name, layoutOnly))
        continue;
      folded.push_back({name, node.name()});
    }
  }
  return folded;
}

std::vector<std::string>
findExporterConstants(const ::onnx::GraphProto &graph) {
  llvm::StringSet<> initializers;
  for (const ::onnx::TensorProto &tensor : graph.initializer())
    initializers.insert(tensor.name());
  std::vector<std::string> constants;
  // A value the exporter named ("val_82") that only nodes lowering a
  // parameter-free FX node read is a constant of that lowering (the 1/sqrt
  // scale of scaled_dot_product_attention), not a folded parameter: those
  // (Linear's transposed weight) are read by the FX node of their module.
  static const std::regex exporterName("val_[0-9]+");
  llvm::StringMap<bool> onlyParameterFree;
  for (const ::onnx::NodeProto &node : graph.node()) {
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    bool parameterFree = fxNode && fxParameters(*fxNode).empty();
    for (const std::string &input : node.input()) {
      if (!initializers.contains(input) ||
          !std::regex_match(input, exporterName))
        continue;
      auto [it, inserted] = onlyParameterFree.try_emplace(input, parameterFree);
      if (!inserted)
        it->second = it->second && parameterFree;
    }
  }
  // A one-element 0 or 1 the exporter only broadcasts (Expand's input) is
  // the fill of a torch.ones or torch.zeros inside a lowering
  // (embedding_bag's unit per-sample weights), whatever FX node reads it: a
  // folded parameter keeps the parameter's shape (a one-element one that is
  // expanded and happens to hold 0 or 1 would be taken for a fill).
  llvm::StringMap<bool> onlyExpanded;
  for (const ::onnx::NodeProto &node : graph.node())
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string &input = node.input(i);
      if (!initializers.contains(input) ||
          !std::regex_match(input, exporterName))
        continue;
      bool expanded = node.op_type() == "Expand" && i == 0 &&
                      (node.domain().empty() || node.domain() == "ai.onnx");
      auto [it, inserted] = onlyExpanded.try_emplace(input, expanded);
      if (!inserted)
        it->second = it->second && expanded;
    }
  for (const ::onnx::TensorProto &tensor : graph.initializer())
    if (onlyParameterFree.lookup(tensor.name()) ||
        (onlyExpanded.lookup(tensor.name()) && isUnitFill(tensor)))
      constants.push_back(tensor.name());
  for (const ::onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "InstanceNormalization")
      continue;
    std::optional<std::string> fxNode = nodeMetadata(node, kFxNodeKey);
    if (!fxNode || !llvm::StringRef(*fxNode).contains("group_norm"))
      continue;
    for (int i = 1; i < std::min(node.input_size(), 3); ++i)
      if (initializers.contains(node.input(i)))
        constants.push_back(node.input(i));
  }
  return constants;
}

} // namespace odt
