//===- Descriptor.cpp - the model descriptor emitted with the code --------===//

#include "codegen/common/Descriptor.h"
#include "codegen/common/AbiRecord.h"
#include "codegen/common/GPUKernelTable.h"
#include "codegen/common/ShapeFunctions.h"
#include "compiler/training/Roles.h"

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

class DescriptorBuilder {
public:
  DescriptorBuilder(ModuleOp module, const std::string &prefix,
                    const ExportTemplate *exportTemplate)
      : module(module), prefix(prefix), exportTemplate(exportTemplate) {}

  FailureOr<ModelDescriptor> build();

private:
  using EntryOffsets = std::vector<flatbuffers::Offset<fb::EntryPoint>>;

  std::vector<flatbuffers::Offset<fb::ParameterInfo>>
  addParameters(ArrayAttr parameters);
  /// Entry point `funcName` (of `kind`) as `entry` records it, with its C
  /// declaration and resolver case for model.h.
  void addEntryPoint(DictionaryAttr entry, const char *funcName,
                     fb::EntryKind kind, EntryOffsets &entries,
                     llvm::json::Array &jsonEntries);
  /// One argument of an entry point; its line of the C comment.
  flatbuffers::Offset<fb::Argument>
  addArgument(DictionaryAttr arg, size_t index, llvm::json::Array &jsonArgs);
  flatbuffers::Offset<fb::OptimizerInfo> addOptimizer(DictionaryAttr info);
  /// The export template, if there is one.
  void addExportTemplate(
      flatbuffers::Offset<flatbuffers::Vector<uint8_t>> &evalModel,
      flatbuffers::Offset<
          flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
          &evalModelParameters);
  /// A GPU build's kernels and PTX images (GPUKernelTable.h), and its
  /// launcher hook's declaration; nothing for a CPU build.
  LogicalResult addGPUKernels(
      flatbuffers::Offset<
          flatbuffers::Vector<flatbuffers::Offset<fb::GpuKernel>>> &kernels,
      flatbuffers::Offset<
          flatbuffers::Vector<flatbuffers::Offset<fb::GpuImage>>> &images);
  /// model.h: the declarations, the resolver and the linked-model helper.
  std::string writeHeader() const;

  ModuleOp module;
  const std::string &prefix;
  const ExportTemplate *exportTemplate;

  flatbuffers::FlatBufferBuilder fbb;
  llvm::json::Object json;
  /// model.h's entry declarations and the resolver's cases.
  std::string declarations, resolverCases;
};

std::vector<flatbuffers::Offset<fb::ParameterInfo>>
DescriptorBuilder::addParameters(ArrayAttr recorded) {
  std::vector<flatbuffers::Offset<fb::ParameterInfo>> parameters;
  llvm::json::Array jsonParameters;
  for (auto dict : recorded.getAsRange<DictionaryAttr>()) {
    std::string name = dict.getAs<StringAttr>("name").str();
    int32_t dataType = dict.getAs<IntegerAttr>("data_type").getInt();
    std::vector<int64_t> dims;
    for (auto dim : dict.getAs<ArrayAttr>("dims").getAsRange<IntegerAttr>())
      dims.push_back(dim.getInt());
    bool trainable = dict.getAs<BoolAttr>("trainable").getValue();
    parameters.push_back(
        fb::CreateParameterInfo(fbb, fbb.CreateString(name), dataType,
                                fbb.CreateVector(dims), trainable));
    llvm::json::Object p;
    p["name"] = name;
    p["data_type"] = dataType;
    p["dims"] = llvm::json::Array(dims);
    p["trainable"] = trainable;
    jsonParameters.push_back(std::move(p));
  }
  json["parameters"] = std::move(jsonParameters);
  return parameters;
}

flatbuffers::Offset<fb::Argument>
DescriptorBuilder::addArgument(DictionaryAttr arg, size_t index,
                               llvm::json::Array &jsonArgs) {
  std::string name = arg.getAs<StringAttr>("name").str();
  StringRef roleName = arg.getAs<StringAttr>("role").getValue();
  int32_t dataType = arg.getAs<IntegerAttr>("data_type").getInt();
  bool writes = arg.getAs<BoolAttr>("writes").getValue();
  auto parameter = arg.getAs<IntegerAttr>("parameter");
  std::vector<flatbuffers::Offset<fb::Dim>> dims;
  llvm::json::Array jsonDims;
  std::string dimText;
  for (Attribute dim : arg.getAs<ArrayAttr>("dims")) {
    if (auto size = dyn_cast<IntegerAttr>(dim)) {
      dims.push_back(fb::CreateDim(fbb, size.getInt()));
      jsonDims.push_back(size.getInt());
      dimText += (dimText.empty() ? "" : ", ") + std::to_string(size.getInt());
    } else {
      StringRef symbol = cast<StringAttr>(dim).getValue();
      dims.push_back(fb::CreateDim(fbb, -1, fbb.CreateString(symbol.str())));
      jsonDims.push_back(symbol.str());
      dimText += (dimText.empty() ? "" : ", ") + symbol.str();
    }
  }
  // Integer inputs that index data or name classes (odt-record-abi).
  auto range = arg.getAs<ArrayAttr>("value_range");
  auto exception = arg.getAs<IntegerAttr>("value_exception");
  auto reason = arg.getAs<StringAttr>("value_range_reason");
  int64_t valueMin = range ? cast<IntegerAttr>(range[0]).getInt() : 0;
  int64_t valueMax = range ? cast<IntegerAttr>(range[1]).getInt() : -1;
  flatbuffers::Offset<fb::Argument> fbArg = fb::CreateArgument(
      fbb, fbb.CreateString(name), toFlatbufferRole(*parseRole(roleName)),
      dataType, fbb.CreateVector(dims), parameter ? parameter.getInt() : -1,
      writes, valueMin, valueMax, exception != nullptr,
      exception ? exception.getInt() : 0,
      reason && !reason.empty() ? fbb.CreateString(reason.str()) : 0);
  llvm::json::Object a;
  a["name"] = name;
  a["role"] = roleName.str();
  a["data_type"] = dataType;
  a["dims"] = std::move(jsonDims);
  if (parameter)
    a["parameter"] = parameter.getInt();
  a["writes"] = writes;
  if (range) {
    a["value_range"] = llvm::json::Array{valueMin, valueMax};
    if (exception)
      a["value_exception"] = exception.getInt();
    a["value_range_reason"] = reason ? reason.str() : "";
  }
  jsonArgs.push_back(std::move(a));
  declarations += "     [" + std::to_string(index) + "] " + name + " (" +
                  roleName.str() + ") [" + dimText + "]\n";
  return fbArg;
}

void DescriptorBuilder::addEntryPoint(DictionaryAttr entry,
                                      const char *funcName, fb::EntryKind kind,
                                      EntryOffsets &entries,
                                      llvm::json::Array &jsonEntries) {
  // The buffers in ABI order: the arguments, then the outputs
  // odt-destination-passing appended.
  SmallVector<DictionaryAttr> arguments(
      entry.getAs<ArrayAttr>("arguments").getAsRange<DictionaryAttr>());
  llvm::append_range(
      arguments,
      entry.getAs<ArrayAttr>("outputs").getAsRange<DictionaryAttr>());
  bool hasShapeFunction = entry.contains("shape_function");
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
  if (hasShapeFunction) {
    std::string shapes = symbol + kShapeFunctionSuffix;
    shapeSymbol = fbb.CreateString(shapes);
    declarations += "/* Writes every dim of every output of " + symbol +
                    ", then the two sizes of each dim check, into the int64 "
                    "buffer after the other arguments. */\n"
                    "void " +
                    shapes + "(void **args);\n";
    resolverCases += "  if (strcmp(symbol, \"" + shapes +
                     "\") == 0)\n    entry = " + shapes + ";\n";
  }
  std::vector<flatbuffers::Offset<fb::Divisibility>> divisibility;
  llvm::json::Array jsonDivisibility;
  if (auto requirements = entry.getAs<ArrayAttr>("divisibility"))
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
  std::vector<flatbuffers::Offset<flatbuffers::String>> dimChecks;
  llvm::json::Array jsonDimChecks;
  if (auto checks = entry.getAs<ArrayAttr>("dim_checks"))
    for (auto message : checks.getAsRange<StringAttr>()) {
      dimChecks.push_back(fbb.CreateString(message.str()));
      jsonDimChecks.push_back(message.str());
    }
  entries.push_back(fb::CreateEntryPoint(
      fbb, kind, fbb.CreateString(symbol), fbb.CreateVector(fbArgs),
      shapeSymbol, divisibility.empty() ? 0 : fbb.CreateVector(divisibility),
      dimChecks.empty() ? 0 : fbb.CreateVector(dimChecks)));
  llvm::json::Object e;
  if (!jsonDivisibility.empty())
    e["divisibility"] = std::move(jsonDivisibility);
  if (!jsonDimChecks.empty())
    e["dim_checks"] = std::move(jsonDimChecks);
  e["kind"] = funcName;
  e["symbol"] = symbol;
  e["arguments"] = std::move(jsonArgs);
  if (hasShapeFunction)
    e["shape_symbol"] = symbol + kShapeFunctionSuffix;
  jsonEntries.push_back(std::move(e));
}

flatbuffers::Offset<fb::OptimizerInfo>
DescriptorBuilder::addOptimizer(DictionaryAttr info) {
  flatbuffers::Offset<fb::OptimizerInfo> optimizer;
  if (!info)
    return optimizer;
  llvm::json::Object o;
  auto kind = info.getAs<StringAttr>("kind");
  if (kind && kind.getValue() == "AdamW") {
    auto real = [&](StringRef key) { return info.getAs<FloatAttr>(key); };
    bool correctBias = info.getAs<BoolAttr>("correct_bias").getValue();
    int64_t adamMode = info.getAs<IntegerAttr>("adam_mode").getInt();
    optimizer = fb::CreateOptimizerInfo(
        fbb, fb::OptimizerKind::AdamW, real("alpha").getValueAsDouble(),
        real("beta").getValueAsDouble(), real("epsilon").getValueAsDouble(),
        real("weight_decay").getValueAsDouble(), correctBias, adamMode);
    o["kind"] = "AdamW";
    for (StringRef key : {"alpha", "beta", "epsilon", "weight_decay"})
      o[key] = real(key).getValueAsDouble();
    o["correct_bias"] = correctBias;
    o["adam_mode"] = adamMode;
  } else if (kind && kind.getValue() == "SGD") {
    optimizer = fb::CreateOptimizerInfo(fbb, fb::OptimizerKind::SGD);
    o["kind"] = "SGD";
  }
  json["optimizer"] = std::move(o);
  return optimizer;
}

void DescriptorBuilder::addExportTemplate(
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> &evalModel,
    flatbuffers::Offset<
        flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
        &evalModelParameters) {
  if (!exportTemplate)
    return;
  evalModel = fbb.CreateVector(
      reinterpret_cast<const uint8_t *>(exportTemplate->model.data()),
      exportTemplate->model.size());
  evalModelParameters = fbb.CreateVectorOfStrings(exportTemplate->parameters);
  llvm::json::Object e;
  e["bytes"] = static_cast<int64_t>(exportTemplate->model.size());
  e["parameters"] = llvm::json::Array(exportTemplate->parameters);
  json["eval_model"] = std::move(e);
}

LogicalResult DescriptorBuilder::addGPUKernels(
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::GpuKernel>>>
        &kernels,
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::GpuImage>>>
        &images) {
  auto kernelList = module->getAttrOfType<ArrayAttr>(kGPUKernelsAttr);
  auto imageList = module->getAttrOfType<ArrayAttr>(kGPUImagesAttr);
  if (!kernelList && !imageList)
    return success();
  if (!kernelList || !imageList || imageList.empty())
    return module.emitError() << "a GPU build needs both " << kGPUKernelsAttr
                              << " and " << kGPUImagesAttr;
  std::vector<flatbuffers::Offset<fb::GpuKernel>> kernelOffsets;
  llvm::json::Array jsonKernels;
  for (auto kernel : kernelList.getAsRange<DictionaryAttr>()) {
    std::string name = kernel.getAs<StringAttr>("name").str();
    int64_t parameters = kernel.getAs<IntegerAttr>("parameters").getInt();
    kernelOffsets.push_back(
        fb::CreateGpuKernel(fbb, fbb.CreateString(name), parameters));
    llvm::json::Array bytes;
    if (auto sizes = kernel.getAs<DenseI64ArrayAttr>("parameter_bytes"))
      for (int64_t size : sizes.asArrayRef())
        bytes.push_back(size);
    jsonKernels.push_back(
        llvm::json::Object{{"name", name},
                           {"parameters", parameters},
                           {"parameter_bytes", std::move(bytes)}});
  }
  std::vector<flatbuffers::Offset<fb::GpuImage>> imageOffsets;
  llvm::json::Array chips, cubinChips;
  for (auto image : imageList.getAsRange<DictionaryAttr>()) {
    StringRef chip = image.getAs<StringAttr>("chip").getValue();
    StringRef ptx = image.getAs<StringAttr>("ptx").getValue();
    // cuModuleLoadData reads PTX as a C string.
    std::vector<uint8_t> text(ptx.begin(), ptx.end());
    text.push_back(0);
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> cubinBytes;
    if (auto cubin = image.getAs<StringAttr>("cubin")) {
      cubinBytes = fbb.CreateVector(
          reinterpret_cast<const uint8_t *>(cubin.getValue().data()),
          cubin.getValue().size());
      cubinChips.push_back(chip.str());
    }
    imageOffsets.push_back(fb::CreateGpuImage(
        fbb, fbb.CreateString(chip.str()), fbb.CreateVector(text), cubinBytes));
    chips.push_back(chip.str());
  }
  kernels = fbb.CreateVector(kernelOffsets);
  images = fbb.CreateVector(imageOffsets);
  json["gpu"] = llvm::json::Object{{"chips", std::move(chips)},
                                   {"cubin_chips", std::move(cubinChips)},
                                   {"kernels", std::move(jsonKernels)}};

  std::string setLauncher = prefix + "_set_launcher";
  const char *launcherType =
      "void (*)(int32_t, int64_t, int64_t, int64_t, int64_t, int64_t, "
      "int64_t, int32_t, void **, int32_t)";
  declarations +=
      "/* A GPU build: routes the model's kernel launches through `launch`\n"
      "   (kernel number in the descriptor's gpu_kernels, grid and block\n"
      "   extents, dynamic shared bytes, cuLaunchKernel's parameter\n"
      "   addresses and their count). */\n"
      "void " +
      setLauncher + "(void (*launch)(int32_t, int64_t, int64_t, int64_t,\n" +
      "    int64_t, int64_t, int64_t, int32_t, void **, int32_t));\n";
  resolverCases += "  if (strcmp(symbol, \"" + setLauncher +
                   "\") == 0) {\n"
                   "    void (*setter)(" +
                   std::string(launcherType) + ") = " + setLauncher +
                   ";\n"
                   "    memcpy(&address, &setter, sizeof address);\n"
                   "    return address;\n  }\n";
  return success();
}

FailureOr<ModelDescriptor> DescriptorBuilder::build() {
  auto record = module->getAttrOfType<DictionaryAttr>(kAbiAttr);
  if (!record)
    return module.emitError()
           << "module has no " << kAbiAttr
           << " (odt-record-abi writes it at the end of the graph stage)";
  json["abi_version"] = kModelABIVersion;
  json["name"] = prefix;
  std::vector<flatbuffers::Offset<fb::ParameterInfo>> parameters =
      addParameters(record.getAs<ArrayAttr>("parameters"));

  EntryOffsets entries;
  llvm::json::Array jsonEntries;
  static const std::pair<const char *, fb::EntryKind> kEntries[] = {
      {"train", fb::EntryKind::Train},
      {"eval", fb::EntryKind::Eval},
      {"optimizer", fb::EntryKind::Optimizer}};
  auto recordedEntries = record.getAs<DictionaryAttr>("entries");
  for (auto [funcName, kind] : kEntries)
    if (auto entry = recordedEntries.getAs<DictionaryAttr>(funcName))
      addEntryPoint(entry, funcName, kind, entries, jsonEntries);
  json["entry_points"] = std::move(jsonEntries);

  // Optimizer hyper-parameters, for people and for checks in the runtime.
  flatbuffers::Offset<fb::OptimizerInfo> optimizer =
      addOptimizer(record.getAs<DictionaryAttr>("optimizer"));

  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> evalModel;
  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
      evalModelParameters;
  addExportTemplate(evalModel, evalModelParameters);
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

  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::GpuKernel>>>
      gpuKernels;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::GpuImage>>>
      gpuImages;
  if (failed(addGPUKernels(gpuKernels, gpuImages)))
    return failure();

  auto model =
      fb::CreateModel(fbb, kModelABIVersion, fbb.CreateString("odt-compile"),
                      fbb.CreateString(prefix), fbb.CreateVector(parameters),
                      fbb.CreateVector(entries), optimizer, evalModel,
                      evalModelParameters, gpuKernels, gpuImages);
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

FailureOr<ModelDescriptor>
buildDescriptor(ModuleOp module, const std::string &prefix,
                const ExportTemplate *exportTemplate) {
  return DescriptorBuilder(module, prefix, exportTemplate).build();
}

} // namespace odt
