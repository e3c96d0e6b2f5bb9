//===- ParameterSelection.cpp - which initializers are parameters ---------===//

#include "compiler/training/ParameterSelection.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <initializer_list>

namespace odt {
namespace {

bool isFloatType(int32_t type) {
  return type == ::onnx::TensorProto::FLOAT ||
         type == ::onnx::TensorProto::DOUBLE ||
         type == ::onnx::TensorProto::FLOAT16 ||
         type == ::onnx::TensorProto::BFLOAT16;
}

/// Whether input `index` of an ai.onnx `opType` node carries a setting
/// rather than data: a value there never makes an initializer a weight.
bool isSettingOperand(llvm::StringRef opType, int index) {
  struct Entry {
    const char *op;
    std::initializer_list<int> inputs;
  };
  // Inputs that shape, bound or configure the computation. -1: every input
  // (the op's result does not depend differentiably on any of them).
  static const Entry kSettings[] = {
      {"Clip", {1, 2}},
      {"Dropout", {1, 2}},
      {"Resize", {1, 2, 3}},
      {"Upsample", {1}},
      {"Pad", {1, 2, 3}},
      {"Reshape", {1}},
      {"Expand", {1}},
      {"Tile", {1}},
      {"Slice", {1, 2, 3, 4}},
      {"Squeeze", {1}},
      {"Unsqueeze", {1}},
      {"TopK", {1}},
      {"Split", {1}},
      {"CumSum", {1}},
      {"OneHot", {1, 2}},
      {"BatchNormalization", {3, 4}},
      {"ReduceSum", {1}},
      {"ReduceMean", {1}},
      {"ReduceMax", {1}},
      {"ReduceMin", {1}},
      {"ReduceProd", {1}},
      {"ReduceL1", {1}},
      {"ReduceL2", {1}},
      {"ReduceLogSumExp", {1}},
      {"ReduceSumSquare", {1}},
      {"ReduceLogSum", {1}},
      {"ConstantOfShape", {-1}},
      {"Range", {-1}},
      {"Shape", {-1}},
      {"Size", {-1}},
      {"Equal", {-1}},
      {"Less", {-1}},
      {"Greater", {-1}},
      {"LessOrEqual", {-1}},
      {"GreaterOrEqual", {-1}},
      {"ArgMax", {-1}},
      {"ArgMin", {-1}},
      {"IsNaN", {-1}},
      {"IsInf", {-1}},
      {"Sign", {-1}},
      {"Floor", {-1}},
      {"Ceil", {-1}},
      {"Round", {-1}},
      {"NonZero", {-1}},
      {"Where", {0}},
  };
  for (const Entry &entry : kSettings)
    if (opType == entry.op)
      for (int input : entry.inputs)
        if (input == -1 || input == index)
          return true;
  return false;
}

bool isDefaultDomain(const ::onnx::NodeProto &node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

/// Calls `visit` for every node of `graph` and of its subgraphs.
void forEachNode(const ::onnx::GraphProto &graph,
                 const std::function<void(const ::onnx::NodeProto &)> &visit) {
  for (const ::onnx::NodeProto &node : graph.node()) {
    visit(node);
    for (const ::onnx::AttributeProto &attribute : node.attribute()) {
      if (attribute.has_g())
        forEachNode(attribute.g(), visit);
      for (const ::onnx::GraphProto &subgraph : attribute.graphs())
        forEachNode(subgraph, visit);
    }
  }
}

} // namespace

llvm::StringRef describeInitializerKind(InitializerKind kind) {
  switch (kind) {
  case InitializerKind::Weight:
    return "weight";
  case InitializerKind::NotFloat:
    return "not floating-point";
  case InitializerKind::Scalar:
    return "scalar constant";
  case InitializerKind::RunningStatistic:
    return "BatchNorm running statistic";
  case InitializerKind::Setting:
    return "read only as a setting";
  case InitializerKind::Unused:
    return "unused";
  case InitializerKind::ExporterConstant:
    return "a constant of the exporter's own lowering";
  }
  return "";
}

llvm::StringMap<InitializerKind>
classifyInitializers(const ::onnx::GraphProto &graph) {
  // Readers of each value: (node, input index).
  llvm::StringMap<llvm::SmallVector<std::pair<const ::onnx::NodeProto *, int>>>
      readers;
  forEachNode(graph, [&](const ::onnx::NodeProto &node) {
    for (int i = 0; i < node.input_size(); ++i)
      if (!node.input(i).empty())
        readers[node.input(i)].push_back({&node, i});
  });
  llvm::StringSet<> graphOutputs;
  for (const auto &output : graph.output())
    graphOutputs.insert(output.name());

  // How a value is read: as data somewhere, only as a running statistic,
  // only as a setting, or not at all. Identity and Cast pass the question on
  // to their own readers.
  enum Use { None = 0, SettingUse = 1, StatisticUse = 2, DataUse = 4 };
  std::function<int(llvm::StringRef, llvm::StringSet<> &)> usesOf =
      [&](llvm::StringRef value, llvm::StringSet<> &seen) -> int {
    if (!seen.insert(value).second)
      return None;
    int uses = graphOutputs.contains(value) ? DataUse : None;
    auto it = readers.find(value);
    if (it == readers.end())
      return uses;
    for (auto [node, index] : it->second) {
      llvm::StringRef opType = node->op_type();
      if (!isDefaultDomain(*node)) {
        uses |= DataUse;
      } else if (opType == "BatchNormalization" && (index == 3 || index == 4)) {
        uses |= StatisticUse;
      } else if (isSettingOperand(opType, index)) {
        uses |= SettingUse;
      } else if (opType == "Identity" || opType == "Cast") {
        for (const std::string &output : node->output())
          uses |= usesOf(output, seen);
      } else {
        uses |= DataUse;
      }
    }
    return uses;
  };

  llvm::StringMap<InitializerKind> kinds;
  for (const ::onnx::TensorProto &tensor : graph.initializer()) {
    InitializerKind kind;
    llvm::StringSet<> seen;
    int uses = usesOf(tensor.name(), seen);
    if (!isFloatType(tensor.data_type()))
      kind = InitializerKind::NotFloat;
    else if (uses & DataUse)
      kind = tensor.dims_size() == 0 ? InitializerKind::Scalar
                                     : InitializerKind::Weight;
    else if (uses & StatisticUse)
      kind = InitializerKind::RunningStatistic;
    else if (uses & SettingUse)
      kind = InitializerKind::Setting;
    else
      kind = InitializerKind::Unused;
    kinds[tensor.name()] = kind;
  }
  return kinds;
}

bool isGlobPattern(llvm::StringRef pattern) {
  return pattern.find_first_of("*?[") != llvm::StringRef::npos;
}

} // namespace odt
