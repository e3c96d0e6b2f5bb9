//===- ArtifactImporter.cpp - ORT's artifact trio into one module ---------===//

#include "compiler/import/ArtifactImporter.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/import/ModelReader.h"
#include "compiler/training/Roles.h"

#include "checkpoint_generated.h"
#include "onnx/onnx_pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace odt {

static constexpr llvm::StringLiteral kGradBufferSuffix =
    "_grad.accumulation.buffer";
static constexpr llvm::StringLiteral kGradFlagSuffix = "_grad.accumulation.out";
static constexpr llvm::StringLiteral kLazyResetGrad = "lazy_reset_grad";

FailureOr<CheckpointParameterNames>
readCheckpointParameterNames(StringRef path, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, false, false);
  if (!buffer) {
    error = "cannot open checkpoint '" + path.str() +
            "': " + buffer.getError().message();
    return failure();
  }
  const auto *bytes =
      reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart());
  flatbuffers::Verifier verifier(bytes, (*buffer)->getBufferSize());
  if (!onnxruntime::fbs::VerifyCheckpointBuffer(verifier)) {
    error = "checkpoint '" + path.str() +
            "' is not an ODTC checkpoint (verification failed)";
    return failure();
  }
  const auto *checkpoint = onnxruntime::fbs::GetCheckpoint(bytes);
  if (checkpoint->version() != 2) {
    error = "checkpoint '" + path.str() + "' has version " +
            std::to_string(checkpoint->version()) + ", odt reads version 2";
    return failure();
  }
  CheckpointParameterNames names;
  if (const auto *state = checkpoint->module_state()) {
    auto add = [&](const auto *tensors, bool trainable) {
      if (!tensors)
        return;
      for (const auto *tensor : *tensors)
        if (tensor->name())
          names.parameters.push_back({tensor->name()->str(), trainable});
    };
    add(state->requires_grad_params(), true);
    add(state->frozen_params(), false);
  }
  return names;
}

namespace {

struct ParameterInfo {
  std::string name;
  RankedTensorType type;
  std::vector<std::string> dims;
  bool trainable;
};

class ArtifactImporter {
public:
  ArtifactImporter(MLIRContext *context, const ArtifactPaths &paths,
                   std::vector<ParameterValue> *forwardParameters)
      : context(context), paths(paths), builder(context),
        forwardParameters(forwardParameters) {}

  OwningOpRef<ModuleOp> run();

private:
  InFlightDiagnostic fail(StringRef path) {
    return emitError(FileLineColLoc::get(context, path, 0, 0));
  }
  std::unique_ptr<::onnx::ModelProto> read(StringRef path);
  LogicalResult collectParameters(const ::onnx::ModelProto &model,
                                  StringRef path);
  std::pair<ArgRole, int> classify(StringRef name) const;
  LogicalResult importOptimizer(const ::onnx::ModelProto &model, ModuleOp module);
  LogicalResult collectForwardParameters(const ::onnx::ModelProto &model,
                                         StringRef path);
  LogicalResult applyInputValues(::onnx::ModelProto &model, StringRef path);

  MLIRContext *context;
  const ArtifactPaths &paths;
  Builder builder;
  std::vector<ParameterInfo> parameters;
  llvm::StringMap<int> parameterIndex;
  // From the checkpoint, when given: name -> trainable.
  llvm::StringMap<bool> checkpointParameters;
  bool haveCheckpoint = false;
  std::vector<ParameterValue> *forwardParameters;
  // Initializers promoted to parameters (forward models).
  std::vector<std::pair<std::string, int>> initializerParameters;
  // Inputs fixed by --input-value: constants, never parameters.
  llvm::StringSet<> fixedInputs;
};

} // namespace

std::unique_ptr<::onnx::ModelProto> ArtifactImporter::read(StringRef path) {
  std::string error;
  auto model = readModelFile(path, error);
  if (!model) {
    fail(path) << error;
    return nullptr;
  }
  if (!upgradeOldOpset(*model, path, error)) {
    fail(path) << error;
    return nullptr;
  }
  if (failed(applyInputValues(*model, path)))
    return nullptr;
  return model;
}

LogicalResult ArtifactImporter::applyInputValues(::onnx::ModelProto &model,
                                                 StringRef path) {
  auto dataTypeName = [](int32_t type) {
    return ::onnx::TensorProto::DataType_IsValid(type)
               ? ::onnx::TensorProto::DataType_Name(
                     static_cast<::onnx::TensorProto::DataType>(type))
               : "data type " + std::to_string(type);
  };
  auto *graph = model.mutable_graph();
  for (const auto &entry : paths.inputValues) {
    const std::string &name = entry.first;
    const InputValue &value = entry.second;
    auto input = llvm::find_if(*graph->mutable_input(), [&](const auto &in) {
      return in.name() == name;
    });
    if (input == graph->mutable_input()->end())
      continue; // an input of another graph of the trio
    const auto &type = input->type();
    if (!type.has_tensor_type() ||
        type.tensor_type().elem_type() != value.dataType) {
      fail(path) << "--input-value " << name << ": the input is "
                 << (type.has_tensor_type()
                         ? dataTypeName(type.tensor_type().elem_type())
                         : std::string("not a tensor"))
                 << ", the value is " << dataTypeName(value.dataType);
      return failure();
    }
    if (type.tensor_type().has_shape()) {
      const auto &shape = type.tensor_type().shape();
      bool fits = shape.dim_size() == static_cast<int>(value.dims.size());
      for (int d = 0; fits && d < shape.dim_size(); ++d)
        fits = !shape.dim(d).has_dim_value() ||
               shape.dim(d).dim_value() == value.dims[d];
      if (!fits) {
        fail(path) << "--input-value " << name
                   << ": the value's shape does not fit the input's";
        return failure();
      }
    }
    ::onnx::TensorProto *tensor = graph->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(value.dataType);
    for (int64_t dim : value.dims)
      tensor->add_dims(dim);
    tensor->set_raw_data(std::string(value.bytes.begin(), value.bytes.end()));
    graph->mutable_input()->erase(input);
    fixedInputs.insert(name);
  }
  return success();
}

LogicalResult ArtifactImporter::collectParameters(const ::onnx::ModelProto &model,
                                                  StringRef path) {
  const auto &graph = model.graph();
  llvm::StringSet<> inputNames, initializerNames;
  for (const auto &init : graph.initializer())
    initializerNames.insert(init.name());
  for (const auto &input : graph.input())
    inputNames.insert(input.name());
  for (const auto &input : graph.input()) {
    StringRef name = input.name();
    if (initializerNames.contains(name))
      continue;
    bool isParameter, trainable;
    if (haveCheckpoint) {
      auto it = checkpointParameters.find(name);
      isParameter = it != checkpointParameters.end();
      trainable = isParameter && it->second;
    } else {
      // Without a checkpoint, a parameter is an input with a gradient buffer.
      isParameter = inputNames.contains((name + kGradBufferSuffix).str());
      trainable = isParameter;
    }
    if (!isParameter)
      continue;
    if (!input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape()) {
      fail(path) << "'" << path << "': parameter '" << name
                 << "' has no tensor type with a shape";
      return failure();
    }
    const auto &tensorType = input.type().tensor_type();
    Type elementType = convertElementType(context, tensorType.elem_type());
    SmallVector<int64_t> shape;
    std::vector<std::string> dims;
    for (const auto &dim : tensorType.shape().dim()) {
      if (!dim.has_dim_value()) {
        fail(path) << "'" << path << "': parameter '" << name
                   << "' has a symbolic dim; parameters must have static "
                      "shapes";
        return failure();
      }
      shape.push_back(dim.dim_value());
      dims.push_back(std::to_string(dim.dim_value()));
    }
    if (!elementType || !isa<FloatType>(elementType)) {
      if (trainable) {
        fail(path) << "'" << path << "': trainable parameter '" << name
                   << "' is not floating point";
        return failure();
      }
      if (!elementType) {
        fail(path) << "'" << path << "': parameter '" << name
                   << "' has an unsupported element type";
        return failure();
      }
    }
    parameterIndex[name] = parameters.size();
    parameters.push_back(
        {name.str(), RankedTensorType::get(shape, elementType), dims, trainable});
  }
  if (haveCheckpoint) {
    // Every trainable checkpoint parameter must be a training-graph input.
    for (const auto &entry : checkpointParameters)
      if (!parameterIndex.count(entry.getKey())) {
        fail(path) << "'" << path << "': the checkpoint's parameter '"
                   << entry.getKey() << "' is not an input of this graph";
        return failure();
      }
  }
  return success();
}

LogicalResult
ArtifactImporter::collectForwardParameters(const ::onnx::ModelProto &model,
                                           StringRef path) {
  llvm::StringSet<> inputNames;
  for (const auto &input : model.graph().input())
    inputNames.insert(input.name());
  for (const auto &init : model.graph().initializer()) {
    // An initializer that is also a graph input is a default value the
    // caller may override: it stays an input.
    if (inputNames.contains(init.name()) || fixedInputs.contains(init.name()))
      continue;
    Type elementType = convertElementType(context, init.data_type());
    if (!elementType || !isa<FloatType>(elementType))
      continue;
    FailureOr<ElementsAttr> value = convertTensorProto(
        context, init, path,
        NameLoc::get(StringAttr::get(context, init.name()),
                     FileLineColLoc::get(context, path, 0, 0)));
    if (failed(value))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(*value);
    if (!dense) {
      fail(path) << "'" << path << "': initializer '" << init.name()
                 << "' has no dense value";
      return failure();
    }
    ParameterValue parameter;
    parameter.name = init.name();
    parameter.dataType = init.data_type();
    parameter.dims.assign(init.dims().begin(), init.dims().end());
    ArrayRef<char> raw = dense.getRawData();
    int64_t count = dense.getNumElements();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < count; ++i)
        parameter.bytes.insert(parameter.bytes.end(), raw.begin(), raw.end());
    } else {
      parameter.bytes.assign(raw.begin(), raw.end());
    }
    int index = parameters.size();
    parameterIndex[parameter.name] = index;
    parameters.push_back({parameter.name,
                          cast<RankedTensorType>(dense.getType()),
                          std::vector<std::string>(), /*trainable=*/false});
    for (int64_t dim : parameter.dims)
      parameters.back().dims.push_back(std::to_string(dim));
    initializerParameters.push_back({parameter.name, index});
    if (forwardParameters)
      forwardParameters->push_back(std::move(parameter));
  }
  return success();
}

std::pair<ArgRole, int> ArtifactImporter::classify(StringRef name) const {
  auto it = parameterIndex.find(name);
  if (it != parameterIndex.end())
    return {ArgRole::Parameter, it->second};
  if (name.ends_with(kGradBufferSuffix)) {
    auto param = parameterIndex.find(name.drop_back(kGradBufferSuffix.size()));
    if (param != parameterIndex.end())
      return {ArgRole::GradientBuffer, param->second};
  }
  if (name == kLazyResetGrad)
    return {ArgRole::LazyResetGrad, -1};
  return {ArgRole::UserInput, -1};
}

LogicalResult ArtifactImporter::importOptimizer(const ::onnx::ModelProto &model,
                                                ModuleOp module) {
  StringRef path = paths.optimizer;
  const auto &graph = model.graph();
  // ORT's contract: learning_rate, step, then the sequences.
  static const char *kSequenceInputs[] = {"params", "gradients",
                                          "first_order_moments",
                                          "second_order_moments"};
  static const ArgRole kSequenceRoles[] = {
      ArgRole::Parameter, ArgRole::GradientBuffer, ArgRole::FirstMoment,
      ArgRole::SecondMoment};
  // One optimizer node, optionally after ORT's gradient clipping
  // (onnxblock's ClipGradNorm: InplaceClipGradNorm over the gradients).
  bool clipped = graph.node_size() == 2 &&
                 graph.node(0).op_type() == "InplaceClipGradNorm";
  if (graph.node_size() != 1 && !clipped) {
    fail(path) << "'" << path << "': an optimizer graph has one node "
               << "(AdamWOptimizer or SGDOptimizerV2), optionally after an "
               << "InplaceClipGradNorm; this one has " << graph.node_size()
               << " nodes";
    return failure();
  }
  GraphImportOptions options;
  options.sourcePath = path.str();
  std::vector<int> trainable;
  for (auto [index, param] : llvm::enumerate(parameters))
    if (param.trainable)
      trainable.push_back(index);
  for (int s = 0; s < 4; ++s) {
    SequenceExpansion expansion;
    expansion.role = kSequenceRoles[s];
    for (int index : trainable) {
      const ParameterInfo &param = parameters[index];
      std::string suffix = s == 0   ? ""
                           : s == 1 ? "_grad"
                           : s == 2 ? ".momentum0"
                                    : ".momentum1";
      expansion.elementNames.push_back(param.name + suffix);
      expansion.elementTypes.push_back(param.type);
      expansion.elementDims.push_back(param.dims);
      expansion.parameterIndices.push_back(index);
    }
    options.sequences[kSequenceInputs[s]] = expansion;
  }
  options.classifyInput = [](StringRef name) -> std::pair<ArgRole, int> {
    if (name == "learning_rate")
      return {ArgRole::LearningRate, -1};
    if (name == "step")
      return {ArgRole::Step, -1};
    return {ArgRole::UserInput, -1};
  };
  options.classifyOutput = [](StringRef) { return ArgRole::UpdatedFlag; };
  for (const auto &input : graph.input()) {
    StringRef name = input.name();
    if (name != "learning_rate" && name != "step" &&
        !options.sequences.count(name.str())) {
      fail(path) << "'" << path << "': unexpected optimizer input '" << name
                 << "' (ORT's optimizer graphs take learning_rate, step, "
                    "params, gradients, first_order_moments, "
                    "second_order_moments)";
      return failure();
    }
  }
  if (graph.output_size() != 1) {
    fail(path) << "'" << path
               << "': an optimizer graph has one output (the updated flag)";
    return failure();
  }
  return importGraph(model, module, "optimizer", options);
}

OwningOpRef<ModuleOp> ArtifactImporter::run() {
  OwningOpRef<ModuleOp> module(ModuleOp::create(UnknownLoc::get(context)));
  if (paths.train.empty() && paths.eval.empty()) {
    emitError(UnknownLoc::get(context)) << "no training or eval model given";
    return nullptr;
  }
  if (!paths.optimizer.empty() && paths.train.empty()) {
    emitError(UnknownLoc::get(context))
        << "an optimizer model needs the training model it updates";
    return nullptr;
  }
  if (!paths.checkpoint.empty()) {
    std::string error;
    auto names = readCheckpointParameterNames(paths.checkpoint, error);
    if (failed(names)) {
      fail(paths.checkpoint) << error;
      return nullptr;
    }
    haveCheckpoint = true;
    for (auto &[name, trainable] : names->parameters)
      checkpointParameters[name] = trainable;
  }

  std::unique_ptr<::onnx::ModelProto> train, eval, optimizer;
  if (!paths.train.empty() && !(train = read(paths.train)))
    return nullptr;
  if (!paths.eval.empty() && !(eval = read(paths.eval)))
    return nullptr;
  if (!paths.optimizer.empty() && !(optimizer = read(paths.optimizer)))
    return nullptr;

  // The parameter order is the training graph's input order (ORT's order for
  // CopyParametersToBuffer); without a training graph, the eval graph's.
  if (failed(collectParameters(train ? *train : *eval,
                               train ? paths.train : paths.eval)))
    return nullptr;
  bool forwardModel = !train && !optimizer && !haveCheckpoint;
  if (forwardModel && failed(collectForwardParameters(*eval, paths.eval)))
    return nullptr;

  auto classifyOutput = [](StringRef name) {
    return name.ends_with(kGradFlagSuffix) ? ArgRole::GradAccumFlag
                                           : ArgRole::UserOutput;
  };
  auto classifyInput = [this](StringRef name) { return classify(name); };
  bool failedAny = false;
  if (train) {
    GraphImportOptions options{paths.train, classifyInput, classifyOutput, {},
                               {}};
    failedAny |= failed(importGraph(*train, *module, "train", options));
  }
  if (eval) {
    GraphImportOptions options{paths.eval, classifyInput, classifyOutput, {},
                               initializerParameters};
    failedAny |= failed(importGraph(*eval, *module, "eval", options));
  }
  if (optimizer && !failedAny)
    failedAny |= failed(importOptimizer(*optimizer, *module));
  if (failedAny)
    return nullptr;

  SmallVector<Attribute> paramAttrs;
  for (const ParameterInfo &param : parameters) {
    NamedAttrList attrs;
    attrs.set("name", builder.getStringAttr(param.name));
    attrs.set("type", TypeAttr::get(param.type));
    attrs.set("trainable", builder.getBoolAttr(param.trainable));
    paramAttrs.push_back(attrs.getDictionary(context));
  }
  (*module)->setAttr(kParametersAttr, builder.getArrayAttr(paramAttrs));
  return module;
}

OwningOpRef<ModuleOp>
importArtifacts(MLIRContext *context, const ArtifactPaths &paths,
                std::vector<ParameterValue> *forwardParameters) {
  ArtifactImporter importer(context, paths, forwardParameters);
  return importer.run();
}

} // namespace odt
