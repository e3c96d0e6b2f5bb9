//===- ExportTemplate.cpp - what ExportModelForInferencing needs ----------===//

#include "compiler/export/ExportTemplate.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/import/ModelReader.h"
#include "dialects/onnx/ONNXOps.h"

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <climits>
#include <exception>

using namespace mlir;

namespace odt {
namespace {

/// Reads a tensor's external data into raw_data, so the template does not
/// depend on files next to the eval model.
LogicalResult inlineExternalData(::onnx::TensorProto &tensor,
                                 StringRef evalPath, Location loc) {
  if (tensor.data_location() != ::onnx::TensorProto::EXTERNAL)
    return success();
  FailureOr<std::string> data =
      readExternalData(tensor, evalPath, std::nullopt, loc);
  if (failed(data))
    return failure();
  tensor.set_raw_data(std::move(*data));
  tensor.clear_external_data();
  tensor.clear_data_location();
  return success();
}

/// The ValueInfoProto of an MLIR tensor type: element type and dims (static
/// sizes; dynamic ones left unknown).
std::optional<::onnx::ValueInfoProto> valueInfoOf(StringRef name, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return std::nullopt;
  int32_t elemType = getONNXDataType(ranked.getElementType());
  if (!elemType)
    return std::nullopt;
  ::onnx::ValueInfoProto info;
  info.set_name(name.str());
  auto *tensorType = info.mutable_type()->mutable_tensor_type();
  tensorType->set_elem_type(elemType);
  auto *shape = tensorType->mutable_shape();
  for (int64_t size : ranked.getShape()) {
    auto *dim = shape->add_dim();
    if (!ShapedType::isDynamic(size))
      dim->set_dim_value(size);
  }
  return info;
}

bool hasTensorType(const ::onnx::ValueInfoProto &info) {
  return info.has_type() && info.type().has_tensor_type() &&
         info.type().tensor_type().elem_type() != 0;
}

} // namespace

FailureOr<ExportTemplate>
buildExportTemplate(ModuleOp module, StringRef evalPath,
                    ArrayRef<std::string> parameterNames) {
  Location loc = FileLineColLoc::get(module.getContext(), evalPath, 0, 0);
  std::string error;
  std::unique_ptr<::onnx::ModelProto> model = readModelFile(evalPath, error);
  if (!model) {
    emitError(loc) << error;
    return failure();
  }
  ::onnx::GraphProto *graph = model->mutable_graph();
  for (auto &init : *graph->mutable_initializer())
    if (failed(inlineExternalData(init, evalPath, loc)))
      return failure();
  for (auto &node : *graph->mutable_node())
    for (auto &attr : *node.mutable_attribute()) {
      if (attr.has_t() &&
          failed(inlineExternalData(*attr.mutable_t(), evalPath, loc)))
        return failure();
      for (auto &tensor : *attr.mutable_tensors())
        if (failed(inlineExternalData(tensor, evalPath, loc)))
          return failure();
    }

  // onnx's own shape inference: value_info for the values it can type, with
  // the graph's dim_params carried through. Best effort: what it cannot
  // infer (operators it does not know) stays untyped, and a failure leaves
  // the model as it was.
  {
    ::onnx::ModelProto inferred = *model;
    try {
      ::onnx::shape_inference::InferShapes(
          inferred, ::onnx::OpSchemaRegistry::Instance(),
          ::onnx::ShapeInferenceOptions(/*check_type=*/false,
                                        /*strict_mode=*/0,
                                        /*data_prop=*/false));
      *model = std::move(inferred);
      graph = model->mutable_graph();
    } catch (const std::exception &e) {
      emitWarning(loc) << "'" << evalPath
                       << "': onnx shape inference failed, exported models "
                          "may lack types of intermediate values: "
                       << e.what();
    }
  }

  // Values still untyped: the types odt's import inferred for @eval, by
  // node name (the ops carry NameLoc(node name); results are the node's
  // outputs in order).
  llvm::StringSet<> typed;
  for (const auto &input : graph->input())
    if (hasTensorType(input))
      typed.insert(input.name());
  for (const auto &init : graph->initializer())
    typed.insert(init.name());
  for (const auto &info : graph->value_info())
    if (hasTensorType(info))
      typed.insert(info.name());
  for (const auto &output : graph->output())
    if (hasTensorType(output))
      typed.insert(output.name());
  llvm::StringMap<Operation *> opsByNode;
  if (auto eval = module.lookupSymbol<func::FuncOp>("eval"))
    eval.walk([&](Operation *op) {
      if (auto name = dyn_cast<NameLoc>(op->getLoc()))
        opsByNode.try_emplace(name.getName().getValue(), op);
    });
  for (const auto &node : graph->node()) {
    if (node.name().empty())
      continue;
    Operation *op = opsByNode.lookup(node.name());
    auto iface = op ? dyn_cast<onnx::ONNXOpInterface>(op) : nullptr;
    if (!iface || iface.hasVariadicONNXOutputs())
      continue;
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string &output = node.output(i);
      if (output.empty() || typed.contains(output) ||
          i >= static_cast<int>(op->getNumResults()))
        continue;
      if (auto info = valueInfoOf(output, op->getResult(i).getType())) {
        *graph->add_value_info() = *info;
        typed.insert(output);
      }
    }
  }

  // The declared outputs keep their types when export makes them
  // intermediate values.
  llvm::StringSet<> described;
  for (const auto &info : graph->value_info())
    described.insert(info.name());
  for (const auto &output : graph->output())
    if (hasTensorType(output) && !described.contains(output.name()))
      *graph->add_value_info() = output;

  ExportTemplate result;
  llvm::StringSet<> parameters;
  for (const std::string &name : parameterNames)
    parameters.insert(name);
  llvm::StringSet<> initializers;
  for (const auto &init : graph->initializer())
    initializers.insert(init.name());
  for (const auto &input : graph->input())
    if (parameters.contains(input.name()) &&
        !initializers.contains(input.name()))
      result.parameters.push_back(input.name());

  size_t size = model->ByteSizeLong();
  if (size > size_t(INT_MAX)) {
    emitError(loc) << "'" << evalPath << "': the eval model with its data is "
                   << size
                   << " bytes; odt cannot embed a model over 2 GiB "
                      "for export";
    return failure();
  }
  if (!model->SerializeToString(&result.model)) {
    emitError(loc) << "'" << evalPath
                   << "': cannot serialize the export template";
    return failure();
  }
  return result;
}

} // namespace odt
