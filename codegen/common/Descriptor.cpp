//===- Descriptor.cpp - the model descriptor emitted with the code --------===//

#include "codegen/common/Descriptor.h"
#include "codegen/common/ShapeFunctions.h"
#include "compiler/export/ExportTemplate.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "model_generated.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace odt {
namespace {

namespace fb = odt::fb;

fb::ArgumentRole toFlatbufferRole(ArgRole role) {
  switch (role) {
#define ODT_ROLE_TO_SCHEMA(name, value, spelling, words)                       \
  case ArgRole::name:                                                          \
    return fb::ArgumentRole::name;
    ODT_ARGUMENT_ROLES(ODT_ROLE_TO_SCHEMA)
#undef ODT_ROLE_TO_SCHEMA
  case ArgRole::GradAccumFlag:
    break;
  }
  return fb::ArgumentRole::UserOutput;
}

/// One buffer of an entry point, in ABI order.
struct ArgumentInfo {
  std::string name;
  ArgRole role;
  int32_t dataType;
  SmallVector<Attribute> dims; // IntegerAttr size or StringAttr symbol
  int parameter = -1;
  bool writes = false;
  // Valid values of an integer input used as indices or class labels, and
  // the op that narrows them most.
  std::optional<std::pair<int64_t, int64_t>> valueRange;
  std::optional<int64_t> valueException;
  std::string valueRangeReason;
};

/// The node name an op was imported from (its NameLoc), for messages.
std::string nodeLabel(Operation *op) {
  std::string label = op->getName().getStringRef().str();
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return "node '" + name.getName().str() + "' (" + label + ")";
  return label;
}

/// The index range an op accepts for `indices`, one of its operands: a
/// gather or scatter along a static axis of size D takes [-D, D-1], a loss
/// over C static classes takes [0, C-1] and its ignore_index.
struct IndexConstraint {
  int64_t min, max;
  std::optional<int64_t> exception;
};

std::optional<IndexConstraint> indexConstraint(Operation *op, Value indices) {
  auto staticDim = [](Value value, int64_t axis) -> std::optional<int64_t> {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || axis < 0 || axis >= type.getRank() || type.isDynamicDim(axis))
      return std::nullopt;
    return type.getDimSize(axis);
  };
  auto alongAxis = [&](Value data,
                       int64_t axis) -> std::optional<IndexConstraint> {
    auto type = dyn_cast<RankedTensorType>(data.getType());
    if (!type)
      return std::nullopt;
    if (axis < 0)
      axis += type.getRank();
    std::optional<int64_t> size = staticDim(data, axis);
    if (!size)
      return std::nullopt;
    return IndexConstraint{-*size, *size - 1, std::nullopt};
  };
  auto classes = [&](Value scores, std::optional<int64_t> ignoreIndex)
      -> std::optional<IndexConstraint> {
    std::optional<int64_t> count = staticDim(scores, 1);
    if (!count)
      return std::nullopt;
    return IndexConstraint{0, *count - 1, ignoreIndex};
  };
  if (auto gather = dyn_cast<onnx::GatherOp>(op))
    return gather.getIndices() == indices
               ? alongAxis(gather.getData(), gather.getAxis())
               : std::nullopt;
  if (auto gather = dyn_cast<onnx::GatherElementsOp>(op))
    return gather.getIndices() == indices
               ? alongAxis(gather.getData(), gather.getAxis())
               : std::nullopt;
  if (auto scatter = dyn_cast<onnx::ScatterElementsOp>(op))
    return scatter.getIndices() == indices
               ? alongAxis(scatter.getData(), scatter.getAxis())
               : std::nullopt;
  if (auto gather = dyn_cast<onnx::GatherNDOp>(op)) {
    // Each index tuple addresses data dims [b, b + K); one range holds only
    // when those dims are equal.
    auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
    auto dataType = dyn_cast<RankedTensorType>(gather.getData().getType());
    if (gather.getIndices() != indices || !indicesType || !dataType ||
        indicesType.isDynamicDim(indicesType.getRank() - 1))
      return std::nullopt;
    int64_t first = gather.getBatchDims();
    int64_t count = indicesType.getDimSize(indicesType.getRank() - 1);
    std::optional<int64_t> size = staticDim(gather.getData(), first);
    for (int64_t d = first; size && d < first + count; ++d)
      if (staticDim(gather.getData(), d) != size)
        size = std::nullopt;
    if (!size)
      return std::nullopt;
    return IndexConstraint{-*size, *size - 1, std::nullopt};
  }
  if (auto loss = dyn_cast<onnx::SoftmaxCrossEntropyLossOp>(op))
    return loss.getLabels() == indices
               ? classes(loss.getScores(), loss.getIgnoreIndex())
               : std::nullopt;
  if (auto grad = dyn_cast<onnx::SoftmaxCrossEntropyLossGradOp>(op))
    return grad.getLabel() == indices
               ? classes(grad.getLogProb(), grad.getIgnoreIndex())
               : std::nullopt;
  if (auto loss = dyn_cast<onnx::NegativeLogLikelihoodLossOp>(op))
    return loss.getTarget() == indices
               ? classes(loss.getInput(), loss.getIgnoreIndex())
               : std::nullopt;
  return std::nullopt;
}

/// Ops that pass integer values through unchanged (only moved or
/// replicated), so a range needed downstream holds for their input.
bool passesValuesThrough(Operation *op, Value operand) {
  if (isa<onnx::IdentityOp, onnx::ReshapeOp, onnx::UnsqueezeOp, onnx::SqueezeOp,
          onnx::FlattenOp, onnx::TransposeOp, onnx::ExpandOp>(op))
    return op->getOperand(0) == operand;
  if (isa<onnx::CastOp>(op)) {
    auto to = dyn_cast<IntegerType>(
        cast<ShapedType>(op->getResult(0).getType()).getElementType());
    auto from =
        cast<IntegerType>(cast<ShapedType>(operand.getType()).getElementType());
    return to && to.getWidth() >= from.getWidth();
  }
  return false;
}

/// The values an integer user input may hold, from every op that uses it
/// as indices or class labels (directly or through ops that only move its
/// values): the intersection of their ranges. The runtime checks them before
/// each call, so a bad index is an error naming the op instead of a clamped
/// (wrong) read.
void findIndexRange(BlockArgument arg, ArgumentInfo &info) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || !isa<IntegerType>(type.getElementType()))
    return;
  SmallVector<Value> worklist = {arg};
  bool exceptionAllowed = true;
  Operation *reason = nullptr; // the first op (in program order) to narrow
  auto setReason = [&](Operation *op) {
    reason = op;
    info.valueRangeReason = nodeLabel(op);
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (passesValuesThrough(user, value)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      std::optional<IndexConstraint> constraint = indexConstraint(user, value);
      if (!constraint)
        continue;
      if (!info.valueRange) {
        info.valueRange = {constraint->min, constraint->max};
        info.valueException = constraint->exception;
        setReason(user);
        continue;
      }
      auto &[min, max] = *info.valueRange;
      bool narrower = constraint->min > min || constraint->max < max;
      bool same = constraint->min == min && constraint->max == max;
      if (narrower || (same && user->getBlock() == reason->getBlock() &&
                       user->isBeforeInBlock(reason)))
        setReason(user);
      min = std::max(min, constraint->min);
      max = std::min(max, constraint->max);
      exceptionAllowed &= info.valueException == constraint->exception;
    }
  }
  if (!exceptionAllowed)
    info.valueException = std::nullopt;
}

class DescriptorBuilder {
public:
  DescriptorBuilder(ModuleOp module, const std::string &prefix,
                    const std::string &evalModelPath,
                    DictionaryAttr codegenArguments)
      : module(module), prefix(prefix), evalModelPath(evalModelPath),
        codegenArguments(codegenArguments) {}

  FailureOr<ModelDescriptor> build();

private:
  using EntryOffsets = std::vector<flatbuffers::Offset<fb::EntryPoint>>;

  LogicalResult collectArguments(func::FuncOp func,
                                 std::vector<ArgumentInfo> &arguments);
  /// The parameters (module attribute odt.parameters), or failure.
  FailureOr<std::vector<flatbuffers::Offset<fb::ParameterInfo>>>
  addParameters();
  /// Entry point `func` (`funcName`, of `kind`), with its C declaration and
  /// resolver case for model.h.
  LogicalResult addEntryPoint(func::FuncOp func, const char *funcName,
                              fb::EntryKind kind, EntryOffsets &entries,
                              llvm::json::Array &jsonEntries);
  /// One argument of an entry point; its line of the C comment.
  flatbuffers::Offset<fb::Argument> addArgument(const ArgumentInfo &arg,
                                                size_t index,
                                                llvm::json::Array &jsonArgs);
  flatbuffers::Offset<fb::OptimizerInfo> addOptimizer();
  /// The export template, when the module has an eval graph.
  LogicalResult addExportTemplate(
      ArrayAttr paramAttrs,
      flatbuffers::Offset<flatbuffers::Vector<uint8_t>> &evalModel,
      flatbuffers::Offset<
          flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
          &evalModelParameters);
  /// model.h: the declarations, the resolver and the linked-model helper.
  std::string writeHeader() const;

  ModuleOp module;
  const std::string &prefix;
  const std::string &evalModelPath;
  DictionaryAttr codegenArguments;

  flatbuffers::FlatBufferBuilder fbb;
  llvm::json::Object json;
  /// model.h's entry declarations and the resolver's cases.
  std::string declarations, resolverCases;
};

LogicalResult
DescriptorBuilder::collectArguments(func::FuncOp func,
                                    std::vector<ArgumentInfo> &arguments) {
  auto describe = [&](DictionaryAttr attrs, Type type,
                      Location loc) -> FailureOr<ArgumentInfo> {
    ArgumentInfo info;
    auto tensorType = dyn_cast<RankedTensorType>(type);
    auto name = attrs ? attrs.getAs<StringAttr>(kNameAttr) : nullptr;
    auto roleName = attrs ? attrs.getAs<StringAttr>(kRoleAttr) : nullptr;
    std::optional<ArgRole> role =
        roleName ? parseRole(roleName.getValue()) : std::nullopt;
    if (!tensorType || !name || !role)
      return emitError(loc) << "entry point '" << func.getName()
                            << "' has a buffer without name, role or ranked "
                               "tensor type";
    info.name = name.str();
    info.role = *role;
    info.dataType = getONNXDataType(tensorType.getElementType());
    if (auto param = attrs.getAs<IntegerAttr>(kParamAttr))
      info.parameter = param.getInt();
    auto dims = attrs.getAs<ArrayAttr>(kDimsAttr);
    for (int64_t d = 0; d < tensorType.getRank(); ++d) {
      if (!tensorType.isDynamicDim(d)) {
        info.dims.push_back(IntegerAttr::get(
            IntegerType::get(func.getContext(), 64), tensorType.getDimSize(d)));
      } else if (dims && d < static_cast<int64_t>(dims.size()) &&
                 isa<StringAttr>(dims[d])) {
        info.dims.push_back(dims[d]);
      } else {
        return emitError(loc) << "'" << info.name << "' has a dynamic dim " << d
                              << " without a symbol";
      }
    }
    return info;
  };

  SmallVector<bool> written(func.getNumArguments(), false);
  for (unsigned r = 0; r < func.getNumResults(); ++r)
    if (auto tied = func.getResultAttrOfType<IntegerAttr>(r, kTiedAttr))
      written[tied.getInt()] = true;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    FailureOr<ArgumentInfo> info = describe(
        func.getArgAttrDict(i), func.getArgumentTypes()[i], func.getLoc());
    if (failed(info))
      return failure();
    info->writes = written[i];
    if (info->role == ArgRole::UserInput)
      findIndexRange(func.getArgument(i), *info);
    arguments.push_back(*info);
  }
  // Arguments codegen appended (after the graph's, before the outputs).
  if (auto added = codegenArguments
                       ? codegenArguments.getAs<ArrayAttr>(func.getName())
                       : nullptr) {
    for (Attribute attr : added) {
      auto dict = cast<DictionaryAttr>(attr);
      auto type = dict.getAs<TypeAttr>("type");
      FailureOr<ArgumentInfo> info =
          describe(dict, type ? type.getValue() : Type(), func.getLoc());
      if (failed(info))
        return failure();
      info->writes = true;
      arguments.push_back(*info);
    }
  }
  for (unsigned r = 0; r < func.getNumResults(); ++r) {
    if (func.getResultAttr(r, kTiedAttr))
      continue;
    FailureOr<ArgumentInfo> info = describe(
        func.getResultAttrDict(r), func.getResultTypes()[r], func.getLoc());
    if (failed(info))
      return failure();
    // Dims no input binds are computed at run time by the entry point's
    // shape function (odt-generate-shape-functions makes one exactly then).
    info->writes = true;
    arguments.push_back(*info);
  }
  return success();
}

FailureOr<std::vector<flatbuffers::Offset<fb::ParameterInfo>>>
DescriptorBuilder::addParameters() {
  std::vector<flatbuffers::Offset<fb::ParameterInfo>> parameters;
  llvm::json::Array jsonParameters;
  auto paramAttrs = module->getAttrOfType<ArrayAttr>(kParametersAttr);
  if (!paramAttrs)
    return module.emitError() << "module has no " << kParametersAttr;
  for (Attribute attr : paramAttrs) {
    auto dict = cast<DictionaryAttr>(attr);
    auto name = dict.getAs<StringAttr>("name");
    auto type = cast<RankedTensorType>(dict.getAs<TypeAttr>("type").getValue());
    bool trainable = dict.getAs<BoolAttr>("trainable").getValue();
    int32_t dataType = getONNXDataType(type.getElementType());
    std::vector<int64_t> dims(type.getShape().begin(), type.getShape().end());
    parameters.push_back(
        fb::CreateParameterInfo(fbb, fbb.CreateString(name.str()), dataType,
                                fbb.CreateVector(dims), trainable));
    llvm::json::Object p;
    p["name"] = name.str();
    p["data_type"] = dataType;
    p["dims"] = llvm::json::Array(dims);
    p["trainable"] = trainable;
    jsonParameters.push_back(std::move(p));
  }
  json["parameters"] = std::move(jsonParameters);
  return parameters;
}

flatbuffers::Offset<fb::Argument>
DescriptorBuilder::addArgument(const ArgumentInfo &arg, size_t index,
                               llvm::json::Array &jsonArgs) {
  std::vector<flatbuffers::Offset<fb::Dim>> dims;
  llvm::json::Array jsonDims;
  std::string dimText;
  for (Attribute dim : arg.dims) {
    if (auto size = dyn_cast<IntegerAttr>(dim)) {
      dims.push_back(fb::CreateDim(fbb, size.getInt()));
      jsonDims.push_back(size.getInt());
      dimText += (dimText.empty() ? "" : ", ") + std::to_string(size.getInt());
    } else {
      StringRef name = cast<StringAttr>(dim).getValue();
      dims.push_back(fb::CreateDim(fbb, -1, fbb.CreateString(name.str())));
      jsonDims.push_back(name.str());
      dimText += (dimText.empty() ? "" : ", ") + name.str();
    }
  }
  auto [valueMin, valueMax] =
      arg.valueRange.value_or(std::pair<int64_t, int64_t>{0, -1});
  flatbuffers::Offset<fb::Argument> fbArg = fb::CreateArgument(
      fbb, fbb.CreateString(arg.name), toFlatbufferRole(arg.role), arg.dataType,
      fbb.CreateVector(dims), arg.parameter, arg.writes, valueMin, valueMax,
      arg.valueException.has_value(), arg.valueException.value_or(0),
      arg.valueRangeReason.empty() ? 0
                                   : fbb.CreateString(arg.valueRangeReason));
  llvm::json::Object a;
  a["name"] = arg.name;
  a["role"] = getRoleName(arg.role).str();
  a["data_type"] = arg.dataType;
  a["dims"] = std::move(jsonDims);
  if (arg.parameter >= 0)
    a["parameter"] = arg.parameter;
  a["writes"] = arg.writes;
  if (arg.valueRange) {
    a["value_range"] =
        llvm::json::Array{arg.valueRange->first, arg.valueRange->second};
    if (arg.valueException)
      a["value_exception"] = *arg.valueException;
    a["value_range_reason"] = arg.valueRangeReason;
  }
  jsonArgs.push_back(std::move(a));
  declarations += "     [" + std::to_string(index) + "] " + arg.name + " (" +
                  getRoleName(arg.role).str() + ") [" + dimText + "]\n";
  return fbArg;
}

LogicalResult DescriptorBuilder::addEntryPoint(func::FuncOp func,
                                               const char *funcName,
                                               fb::EntryKind kind,
                                               EntryOffsets &entries,
                                               llvm::json::Array &jsonEntries) {
  std::vector<ArgumentInfo> arguments;
  if (failed(collectArguments(func, arguments)))
    return failure();
  std::string symbol = prefix + "_" + funcName;
  std::vector<flatbuffers::Offset<fb::Argument>> fbArgs;
  llvm::json::Array jsonArgs;
  declarations += "\n/* " + std::string(funcName) +
                  ": args[i] points to the "
                  "memref descriptor of\n";
  for (auto [index, arg] : llvm::enumerate(arguments))
    fbArgs.push_back(addArgument(arg, index, jsonArgs));
  declarations += "*/\nvoid " + symbol + "(void **args);\n";
  resolverCases += "  if (strcmp(symbol, \"" + symbol +
                   "\") == 0)\n    entry = " + symbol + ";\n";
  flatbuffers::Offset<flatbuffers::String> shapeSymbol;
  if (needsShapeFunction(func)) {
    std::string shapes = symbol + kShapeFunctionSuffix;
    shapeSymbol = fbb.CreateString(shapes);
    declarations += "/* Writes every dim of every output of " + symbol +
                    " into the int64 buffer after the other arguments. */\n"
                    "void " +
                    shapes + "(void **args);\n";
    resolverCases += "  if (strcmp(symbol, \"" + shapes +
                     "\") == 0)\n    entry = " + shapes + ";\n";
  }
  std::vector<flatbuffers::Offset<fb::Divisibility>> divisibility;
  llvm::json::Array jsonDivisibility;
  if (auto requirements = func->getAttrOfType<ArrayAttr>(kDivisibilityAttr))
    for (auto requirement : requirements.getAsRange<DictionaryAttr>()) {
      std::vector<flatbuffers::Offset<flatbuffers::String>> symbols;
      llvm::json::Array jsonSymbols;
      for (auto name :
           requirement.getAs<ArrayAttr>("symbols").getAsRange<StringAttr>()) {
        symbols.push_back(fbb.CreateString(name.str()));
        jsonSymbols.push_back(name.str());
      }
      int64_t multiple = requirement.getAs<IntegerAttr>("multiple_of").getInt();
      std::string reason = requirement.getAs<StringAttr>("reason").str();
      divisibility.push_back(fb::CreateDivisibility(
          fbb, fbb.CreateVector(symbols), multiple, fbb.CreateString(reason)));
      jsonDivisibility.push_back(
          llvm::json::Object{{"symbols", std::move(jsonSymbols)},
                             {"multiple_of", multiple},
                             {"reason", reason}});
    }
  entries.push_back(fb::CreateEntryPoint(
      fbb, kind, fbb.CreateString(symbol), fbb.CreateVector(fbArgs),
      shapeSymbol, divisibility.empty() ? 0 : fbb.CreateVector(divisibility)));
  llvm::json::Object e;
  if (!jsonDivisibility.empty())
    e["divisibility"] = std::move(jsonDivisibility);
  e["kind"] = funcName;
  e["symbol"] = symbol;
  e["arguments"] = std::move(jsonArgs);
  if (needsShapeFunction(func))
    e["shape_symbol"] = symbol + kShapeFunctionSuffix;
  jsonEntries.push_back(std::move(e));
  return success();
}

flatbuffers::Offset<fb::OptimizerInfo> DescriptorBuilder::addOptimizer() {
  flatbuffers::Offset<fb::OptimizerInfo> optimizer;
  auto func = module.lookupSymbol<func::FuncOp>("optimizer");
  if (!func)
    return optimizer;
  llvm::json::Object o;
  func.walk([&](Operation *op) {
    if (auto adam = dyn_cast<onnx::AdamWOptimizerOp>(op)) {
      optimizer = fb::CreateOptimizerInfo(
          fbb, fb::OptimizerKind::AdamW, adam.getAlpha().convertToFloat(),
          adam.getBeta().convertToFloat(), adam.getEpsilon().convertToFloat(),
          adam.getWeightDecay().convertToFloat(), adam.getCorrectBias() == 1,
          adam.getAdamMode());
      o["kind"] = "AdamW";
      o["alpha"] = adam.getAlpha().convertToDouble();
      o["beta"] = adam.getBeta().convertToDouble();
      o["epsilon"] = adam.getEpsilon().convertToDouble();
      o["weight_decay"] = adam.getWeightDecay().convertToDouble();
      o["correct_bias"] = adam.getCorrectBias() == 1;
      o["adam_mode"] = adam.getAdamMode();
    } else if (isa<onnx::SGDOptimizerV2Op>(op)) {
      optimizer = fb::CreateOptimizerInfo(fbb, fb::OptimizerKind::SGD);
      o["kind"] = "SGD";
    }
  });
  json["optimizer"] = std::move(o);
  return optimizer;
}

LogicalResult DescriptorBuilder::addExportTemplate(
    ArrayAttr paramAttrs,
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> &evalModel,
    flatbuffers::Offset<
        flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
        &evalModelParameters) {
  if (evalModelPath.empty() || !module.lookupSymbol<func::FuncOp>("eval"))
    return success();
  std::vector<std::string> names;
  for (Attribute attr : paramAttrs)
    names.push_back(cast<DictionaryAttr>(attr).getAs<StringAttr>("name").str());
  FailureOr<ExportTemplate> exportTemplate =
      buildExportTemplate(module, evalModelPath, names);
  if (failed(exportTemplate))
    return failure();
  evalModel = fbb.CreateVector(
      reinterpret_cast<const uint8_t *>(exportTemplate->model.data()),
      exportTemplate->model.size());
  evalModelParameters = fbb.CreateVectorOfStrings(exportTemplate->parameters);
  llvm::json::Object e;
  e["bytes"] = static_cast<int64_t>(exportTemplate->model.size());
  e["parameters"] = llvm::json::Array(exportTemplate->parameters);
  json["eval_model"] = std::move(e);
  return success();
}

FailureOr<ModelDescriptor> DescriptorBuilder::build() {
  json["abi_version"] = kModelABIVersion;
  json["name"] = prefix;
  FailureOr<std::vector<flatbuffers::Offset<fb::ParameterInfo>>> parameters =
      addParameters();
  if (failed(parameters))
    return failure();

  EntryOffsets entries;
  llvm::json::Array jsonEntries;
  static const std::pair<const char *, fb::EntryKind> kEntries[] = {
      {"train", fb::EntryKind::Train},
      {"eval", fb::EntryKind::Eval},
      {"optimizer", fb::EntryKind::Optimizer}};
  for (auto [funcName, kind] : kEntries)
    if (auto func = module.lookupSymbol<func::FuncOp>(funcName))
      if (failed(addEntryPoint(func, funcName, kind, entries, jsonEntries)))
        return failure();
  json["entry_points"] = std::move(jsonEntries);

  // Optimizer hyper-parameters, for people and for checks in the runtime.
  flatbuffers::Offset<fb::OptimizerInfo> optimizer = addOptimizer();

  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> evalModel;
  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
      evalModelParameters;
  if (failed(
          addExportTemplate(module->getAttrOfType<ArrayAttr>(kParametersAttr),
                            evalModel, evalModelParameters)))
    return failure();
  // The allocator hook (codegen/cpu/PackEntryPoints.cpp).
  std::string setAllocator = prefix + "_set_allocator";
  declarations += "/* Routes the model's heap buffers through `allocate` and "
                  "`release` (malloc\n   and free until called). */\n"
                  "void " +
                  setAllocator +
                  "(void *(*allocate)(uint64_t), void (*release)(void *));\n";
  resolverCases +=
      "  if (strcmp(symbol, \"" + setAllocator +
      "\") == 0) {\n"
      "    void (*setter)(void *(*)(uint64_t), void (*)(void *)) = " +
      setAllocator +
      ";\n"
      "    memcpy(&address, &setter, sizeof address);\n"
      "    return address;\n  }\n";

  auto model = fb::CreateModel(
      fbb, kModelABIVersion, fbb.CreateString("odt-compile"),
      fbb.CreateString(prefix), fbb.CreateVector(*parameters),
      fbb.CreateVector(entries), optimizer, evalModel, evalModelParameters);
  fb::FinishModelBuffer(fbb, model);

  ModelDescriptor result;
  result.bytes.assign(fbb.GetBufferPointer(),
                      fbb.GetBufferPointer() + fbb.GetSize());
  llvm::raw_string_ostream jsonStream(result.json);
  jsonStream << llvm::formatv("{0:2}", llvm::json::Value(std::move(json)))
             << "\n";
  result.header = writeHeader();
  return result;
}

std::string DescriptorBuilder::writeHeader() const {
  std::string guard = "ODT_MODEL_" + llvm::StringRef(prefix).upper() + "_H";
  // The resolver maps entry names to their addresses for the runtime; the
  // function pointer goes through memcpy, which ISO C and C++ both accept.
  std::string resolver =
      "\n/* The address of an entry point by name (NULL if absent), for\n"
      "   OdtLinkedModel.resolve. */\n"
      "static inline void *" +
      prefix +
      "_resolve(void *context, "
      "const char *symbol) {\n"
      "  void (*entry)(void **) = 0;\n"
      "  void *address = 0;\n"
      "  (void)context;\n" +
      resolverCases +
      "  if (entry)\n"
      "    memcpy(&address, &entry, sizeof address);\n"
      "  return address;\n}\n\n"
      "#ifdef ODT_ODT_H\n"
      "/* This model for OdtCreateTrainingSessionFromLinkedModel (include\n"
      "   odt/odt.h before this header). */\n"
      "static inline OdtLinkedModel " +
      prefix +
      "_linked_model(void) {\n"
      "  OdtLinkedModel model;\n"
      "  model.descriptor = " +
      prefix +
      "_descriptor;\n"
      "  model.descriptor_size = " +
      prefix +
      "_descriptor_size;\n"
      "  model.resolve = " +
      prefix +
      "_resolve;\n"
      "  model.context = 0;\n"
      "  return model;\n}\n#endif\n";
  return "/* Generated by odt-compile: the model '" + prefix +
         "' for static linking. */\n#ifndef " + guard + "\n#define " + guard +
         "\n\n#include <stdint.h>\n#include <string.h>\n\n"
         "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
         "/* The model descriptor (flatbuffer, runtime/schema/model.fbs). */\n"
         "extern const uint8_t " +
         prefix +
         "_descriptor[];\n"
         "extern const uint64_t " +
         prefix + "_descriptor_size;\n" + declarations + resolver +
         "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}

} // namespace

FailureOr<ModelDescriptor> buildDescriptor(ModuleOp module,
                                           const std::string &prefix,
                                           const std::string &evalModelPath,
                                           DictionaryAttr codegenArguments) {
  return DescriptorBuilder(module, prefix, evalModelPath, codegenArguments)
      .build();
}

} // namespace odt
