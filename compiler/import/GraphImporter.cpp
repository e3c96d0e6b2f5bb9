//===- GraphImporter.cpp - ONNX graphs into the onnx dialect --------------===//

#include "compiler/import/GraphImporter.h"
#include "compiler/import/ModelReader.h"
#include "compiler/training/ExporterTraces.h"
#include "dialects/onnx/ONNXOps.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <deque>
#include <numeric>

using namespace mlir;

namespace odt {

// The ai.onnx opsets whose semantics the onnx dialect implements.
static constexpr int64_t kMinOpset = 13;
static constexpr int64_t kMaxOpset = 21;

Type convertElementType(MLIRContext *context, int32_t dataType) {
  Builder b(context);
  switch (dataType) {
  case ::onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case ::onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case ::onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case ::onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case ::onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case ::onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case ::onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case ::onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case ::onnx::TensorProto::UINT8:
    return b.getIntegerType(8, false);
  case ::onnx::TensorProto::UINT16:
    return b.getIntegerType(16, false);
  case ::onnx::TensorProto::UINT32:
    return b.getIntegerType(32, false);
  case ::onnx::TensorProto::UINT64:
    return b.getIntegerType(64, false);
  case ::onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return nullptr;
  }
}

int32_t getONNXDataType(Type type) {
  if (type.isF32())
    return ::onnx::TensorProto::FLOAT;
  if (type.isF64())
    return ::onnx::TensorProto::DOUBLE;
  if (type.isF16())
    return ::onnx::TensorProto::FLOAT16;
  if (type.isBF16())
    return ::onnx::TensorProto::BFLOAT16;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      return ::onnx::TensorProto::BOOL;
    case 8:
      return isUnsigned ? ::onnx::TensorProto::UINT8
                        : ::onnx::TensorProto::INT8;
    case 16:
      return isUnsigned ? ::onnx::TensorProto::UINT16
                        : ::onnx::TensorProto::INT16;
    case 32:
      return isUnsigned ? ::onnx::TensorProto::UINT32
                        : ::onnx::TensorProto::INT32;
    case 64:
      return isUnsigned ? ::onnx::TensorProto::UINT64
                        : ::onnx::TensorProto::INT64;
    }
  }
  return 0;
}

std::string getOpName(StringRef domain, StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return ("onnx." + opType).str();
  if (domain == "com.microsoft")
    return ("onnx.ms." + opType).str();
  return "";
}

namespace {

static std::string dataTypeName(int32_t dataType) {
  if (::onnx::TensorProto::DataType_IsValid(dataType))
    return ::onnx::TensorProto::DataType_Name(
        static_cast<::onnx::TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

class Importer {
public:
  Importer(const ::onnx::ModelProto &model, ModuleOp module,
           const GraphImportOptions &options)
      : model(model), module(module), options(options),
        context(module.getContext()), builder(context) {}

  FailureOr<func::FuncOp> run(StringRef funcName);

private:
  Location fileLoc() {
    return FileLineColLoc::get(context, options.sourcePath, 0, 0);
  }
  Location nameLoc(StringRef name) {
    return NameLoc::get(StringAttr::get(context, name), fileLoc());
  }
  InFlightDiagnostic emitGraphError() {
    return emitError(fileLoc()) << "'" << options.sourcePath << "': ";
  }

  LogicalResult checkOpsets();
  LogicalResult checkSupportedNodes();
  FailureOr<std::vector<const ::onnx::NodeProto *>> sortNodes();
  FailureOr<RankedTensorType> convertTensorType(const ::onnx::TypeProto &type,
                                                StringRef name,
                                                std::vector<std::string> &dims);
  FailureOr<ElementsAttr> convertTensor(const ::onnx::TensorProto &tensor,
                                        Location loc);
  LogicalResult
  checkByteSize(RankedTensorType type,
                llvm::function_ref<InFlightDiagnostic()> emitError);
  FailureOr<Attribute> convertAttribute(const ::onnx::AttributeProto &attr,
                                        Location loc);
  LogicalResult importNode(const ::onnx::NodeProto &node, StringRef nodeName);
  LogicalResult importCastLike(const ::onnx::NodeProto &node,
                               StringRef nodeName);
  LogicalResult importCastTo(const ::onnx::NodeProto &node, StringRef nodeName,
                             int32_t dataType);
  LogicalResult importConstant(const ::onnx::NodeProto &node,
                               StringRef nodeName);
  Value getNoValue();

  const ::onnx::ModelProto &model;
  ModuleOp module;
  const GraphImportOptions &options;
  MLIRContext *context;
  OpBuilder builder;
  onnx::ShapeContext shapes;
  llvm::StringMap<SmallVector<Value>> values;
  llvm::StringMap<const ::onnx::TensorProto *> initializers;
  llvm::StringSet<> sequenceNames;
  Value noValue;
};

} // namespace

LogicalResult Importer::checkOpsets() {
  int64_t opset = getOpsetVersion(model, "");
  bool usesDefault = false, usesMicrosoft = false;
  for (const auto &node : model.graph().node()) {
    usesDefault |= node.domain().empty() || node.domain() == "ai.onnx";
    usesMicrosoft |= node.domain() == "com.microsoft";
  }
  if (usesDefault && (opset < kMinOpset || opset > kMaxOpset)) {
    emitGraphError() << "unsupported ai.onnx opset " << opset
                     << " (odt supports " << kMinOpset << " to " << kMaxOpset
                     << ")";
    return failure();
  }
  if (usesMicrosoft && getOpsetVersion(model, "com.microsoft") != 1) {
    emitGraphError() << "unsupported com.microsoft opset "
                     << getOpsetVersion(model, "com.microsoft")
                     << " (odt supports version 1)";
    return failure();
  }
  return success();
}

/// Why odt cannot take an op at all (rather than not yet), for the
/// unsupported-operator list.
static StringRef unsupportedReason(StringRef domain, StringRef opType) {
  if (!domain.empty() && domain != "ai.onnx")
    return "";
  if (opType == "NonZero" || opType == "Unique" || opType == "Compress" ||
      opType == "NonMaxSuppression" || opType == "StringSplit")
    return "its output shape depends on the input values, and odt sizes "
           "every tensor from the input shapes when it compiles";
  if (opType == "Loop" || opType == "If" || opType == "Scan")
    return "control flow with subgraphs is not supported";
  if (opType.starts_with("Sequence") || opType == "ConcatFromSequence" ||
      opType == "SplitToSequence")
    return "tensor sequences are not supported";
  return "";
}

LogicalResult Importer::checkSupportedNodes() {
  std::string unsupported;
  int count = 0;
  for (const auto &[index, node] : llvm::enumerate(model.graph().node())) {
    std::string opName = getOpName(node.domain(), node.op_type());
    if (!opName.empty() &&
        (RegisteredOperationName::lookup(opName, context).has_value() ||
         opName == "onnx.CastLike"))
      continue;
    ++count;
    unsupported += "\n  ";
    if (!node.domain().empty())
      unsupported += node.domain() + ":";
    unsupported += node.op_type();
    if (node.name().empty())
      unsupported += " (unnamed node #" + std::to_string(index) + ")";
    else
      unsupported += " (node '" + node.name() + "')";
    StringRef reason = unsupportedReason(node.domain(), node.op_type());
    if (!reason.empty())
      unsupported += ": " + reason.str();
  }
  if (count) {
    emitGraphError() << count << " unsupported operator"
                     << (count == 1 ? "" : "s") << ":" << unsupported;
    return failure();
  }
  return success();
}

FailureOr<std::vector<const ::onnx::NodeProto *>> Importer::sortNodes() {
  const auto &graph = model.graph();
  // Kahn's algorithm over value names; graph inputs and initializers are
  // available from the start.
  llvm::StringSet<> available;
  for (const auto &input : graph.input())
    available.insert(input.name());
  for (const auto &init : graph.initializer())
    available.insert(init.name());
  available.insert("");
  // Every value has one definition: a second writer would silently replace
  // the first one's value for some readers.
  auto label = [&](int i) {
    const ::onnx::NodeProto &node = graph.node(i);
    return node.name().empty()
               ? node.op_type() + " (unnamed node #" + std::to_string(i) + ")"
               : "'" + node.name() + "'";
  };
  llvm::StringMap<int> producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto &output : graph.node(i).output()) {
      if (output.empty())
        continue;
      if (available.contains(output)) {
        emitGraphError() << "node " << label(i) << " writes '" << output
                         << "', which is a graph input or initializer";
        return failure();
      }
      auto [it, inserted] = producer.insert({output, i});
      if (!inserted) {
        emitGraphError() << "'" << output << "' is written by two nodes, "
                         << label(it->second) << " and " << label(i);
        return failure();
      }
    }
  }
  std::vector<const ::onnx::NodeProto *> order;
  std::vector<bool> done(graph.node_size(), false);
  llvm::StringMap<SmallVector<int>> consumers;
  std::vector<int> missing(graph.node_size(), 0);
  std::deque<int> ready;
  for (int i = 0; i < graph.node_size(); ++i) {
    llvm::StringSet<> seen;
    for (const auto &input : graph.node(i).input()) {
      if (available.contains(input) || !seen.insert(input).second)
        continue;
      consumers[input].push_back(i);
      ++missing[i];
    }
    if (!missing[i])
      ready.push_back(i);
  }
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    done[i] = true;
    order.push_back(&graph.node(i));
    for (const auto &output : graph.node(i).output()) {
      if (output.empty() || available.contains(output))
        continue;
      available.insert(output);
      for (int consumer : consumers.lookup(output))
        if (--missing[consumer] == 0)
          ready.push_back(consumer);
    }
  }
  if (static_cast<int>(order.size()) != graph.node_size()) {
    for (int i = 0; i < graph.node_size(); ++i) {
      if (done[i])
        continue;
      for (const auto &input : graph.node(i).input())
        if (!available.contains(input)) {
          emitGraphError() << "node '" << graph.node(i).name() << "' reads '"
                           << input
                           << "', which no node, input or initializer "
                              "defines (or the graph has a cycle)";
          return failure();
        }
    }
  }
  return order;
}

FailureOr<RankedTensorType>
Importer::convertTensorType(const ::onnx::TypeProto &type, StringRef name,
                            std::vector<std::string> &dims) {
  if (!type.has_tensor_type()) {
    emitGraphError() << "'" << name
                     << "' is not a tensor (sequences, maps "
                        "and optionals are supported only as optimizer "
                        "inputs)";
    return failure();
  }
  const auto &tensorType = type.tensor_type();
  Type elementType = convertElementType(context, tensorType.elem_type());
  if (!elementType) {
    emitGraphError() << "'" << name << "' has unsupported element type "
                     << dataTypeName(tensorType.elem_type());
    return failure();
  }
  if (!tensorType.has_shape()) {
    emitGraphError() << "'" << name
                     << "' has no shape (its rank must be known)";
    return failure();
  }
  SmallVector<int64_t> shape;
  dims.clear();
  for (const auto &dim : tensorType.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      dims.push_back(std::to_string(dim.dim_value()));
    } else {
      shape.push_back(ShapedType::kDynamic);
      dims.push_back(dim.has_dim_param() ? dim.dim_param() : "");
    }
  }
  auto rankedType = RankedTensorType::get(shape, elementType);
  if (failed(checkByteSize(rankedType, [&]() {
        return emitGraphError() << "'" << name << "'";
      })))
    return failure();
  return rankedType;
}

LogicalResult
Importer::checkByteSize(RankedTensorType type,
                        llvm::function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<int64_t> staticDims;
  for (int64_t dim : type.getShape())
    if (!ShapedType::isDynamic(dim))
      staticDims.push_back(dim);
  unsigned bitWidth = type.getElementType().getIntOrFloatBitWidth();
  if (checkedElementCount(staticDims, bitWidth == 1 ? 1 : bitWidth / 8))
    return success();
  emitError() << " has shape ["
              << llvm::make_range(staticDims.begin(), staticDims.end())
              << "] (static dims): more bytes than a 64-bit size can count";
  return failure();
}

FailureOr<ElementsAttr>
Importer::convertTensor(const ::onnx::TensorProto &tensor, Location loc) {
  return convertTensorProto(context, tensor, options.sourcePath, loc);
}

std::optional<int64_t> checkedElementCount(ArrayRef<int64_t> shape,
                                           int64_t elementBytes) {
  int64_t count = 1;
  for (int64_t dim : shape)
    if (dim < 0 || llvm::MulOverflow(count, dim, count))
      return std::nullopt;
  int64_t bytes;
  if (llvm::MulOverflow(count, elementBytes, bytes))
    return std::nullopt;
  return count;
}

static std::atomic<unsigned> externalDataReadCount{0};

unsigned getExternalDataReadCount() { return externalDataReadCount; }

FailureOr<std::string> readExternalData(const ::onnx::TensorProto &tensor,
                                        StringRef sourcePath,
                                        std::optional<uint64_t> defaultLength,
                                        Location loc) {
  ++externalDataReadCount;
  auto error = [&]() {
    return emitError(loc) << "tensor '" << tensor.name() << "': external data ";
  };
  std::string location;
  std::optional<uint64_t> offset, length;
  for (const auto &entry : tensor.external_data()) {
    StringRef key = entry.key();
    if (key == "location") {
      location = entry.value();
      continue;
    }
    if (key != "offset" && key != "length")
      continue; // "checksum" and keys from later ONNX versions
    uint64_t value;
    if (StringRef(entry.value()).getAsInteger(10, value)) {
      error() << key << " '" << entry.value()
              << "' is not a non-negative integer";
      return failure();
    }
    (key == "offset" ? offset : length) = value;
  }
  namespace path = llvm::sys::path;
  if (location.empty()) {
    error() << "has no location";
    return failure();
  }
  if (path::is_absolute(location) ||
      llvm::any_of(llvm::make_range(path::begin(location), path::end(location)),
                   [](StringRef part) { return part == ".."; })) {
    error() << "location '" << location
            << "' must be a path relative to the model's folder, without "
               "'..'";
    return failure();
  }
  SmallString<256> folder(path::parent_path(sourcePath));
  if (folder.empty())
    folder = ".";
  SmallString<256> file(folder);
  path::append(file, location);
  SmallString<256> realFolder, realFile;
  if (std::error_code ec = llvm::sys::fs::real_path(file, realFile)) {
    error() << "'" << file << "' cannot be opened: " << ec.message();
    return failure();
  }
  if (llvm::sys::fs::real_path(folder, realFolder) ||
      !StringRef(realFile).starts_with((realFolder + "/").str())) {
    error() << "'" << file << "' leads out of the model's folder (to '"
            << realFile << "')";
    return failure();
  }
  if (!llvm::sys::fs::is_regular_file(realFile)) {
    error() << "'" << file << "' is not a regular file";
    return failure();
  }
  auto buffer = llvm::MemoryBuffer::getFile(realFile, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error() << "'" << file
            << "' cannot be read: " << buffer.getError().message();
    return failure();
  }
  uint64_t size = (*buffer)->getBufferSize();
  uint64_t start = offset.value_or(0);
  if (start > size) {
    error() << "offset " << start << " lies outside '" << file << "' (" << size
            << " bytes)";
    return failure();
  }
  uint64_t bytes = length.value_or(defaultLength.value_or(size - start));
  if (bytes > size - start) {
    error() << "(offset " << start << ", length " << bytes << ") lies outside '"
            << file << "' (" << size << " bytes)";
    return failure();
  }
  return (*buffer)->getBuffer().substr(start, bytes).str();
}

FailureOr<ElementsAttr> convertTensorProto(MLIRContext *context,
                                           const ::onnx::TensorProto &tensor,
                                           StringRef sourcePath, Location loc) {
  Type elementType = convertElementType(context, tensor.data_type());
  if (!elementType) {
    emitError(loc) << "tensor '" << tensor.name() << "' has unsupported "
                   << dataTypeName(tensor.data_type());
    return failure();
  }
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  unsigned bitWidth = elementType.getIntOrFloatBitWidth();
  int64_t elementBytes = bitWidth == 1 ? 1 : bitWidth / 8;
  std::optional<int64_t> count = checkedElementCount(shape, elementBytes);
  if (!count) {
    emitError(loc) << "tensor '" << tensor.name() << "' has dims ["
                   << llvm::make_range(shape.begin(), shape.end())
                   << "]: a negative dim, or more bytes than a 64-bit size "
                      "can count";
    return failure();
  }
  auto type = RankedTensorType::get(shape, elementType);
  size_t expectedBytes = static_cast<size_t>(*count * elementBytes);

  std::string external;
  const std::string *raw = nullptr;
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL) {
    FailureOr<std::string> data =
        readExternalData(tensor, sourcePath, expectedBytes, loc);
    if (failed(data))
      return failure();
    external = std::move(*data);
    raw = &external;
  } else if (tensor.has_raw_data()) {
    raw = &tensor.raw_data();
  }

  if (raw) {
    if (raw->size() != expectedBytes) {
      emitError(loc) << "tensor '" << tensor.name() << "' holds " << raw->size()
                     << " bytes, its dims need " << expectedBytes;
      return failure();
    }
    if (bitWidth == 1) {
      SmallVector<bool> bits;
      for (char c : *raw)
        bits.push_back(c != 0);
      return ElementsAttr(DenseElementsAttr::get(type, bits));
    }
    return ElementsAttr(
        DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(*raw)));
  }

  // Typed fields.
  auto checkCount = [&](int size) -> LogicalResult {
    if (size == *count)
      return success();
    emitError(loc) << "tensor '" << tensor.name() << "' holds " << size
                   << " values, its dims need " << *count;
    return failure();
  };
  switch (tensor.data_type()) {
  case ::onnx::TensorProto::FLOAT: {
    if (failed(checkCount(tensor.float_data_size())))
      return failure();
    SmallVector<float> data(tensor.float_data().begin(),
                            tensor.float_data().end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<float>(data)));
  }
  case ::onnx::TensorProto::DOUBLE: {
    if (failed(checkCount(tensor.double_data_size())))
      return failure();
    SmallVector<double> data(tensor.double_data().begin(),
                             tensor.double_data().end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<double>(data)));
  }
  case ::onnx::TensorProto::INT64: {
    if (failed(checkCount(tensor.int64_data_size())))
      return failure();
    SmallVector<int64_t> data(tensor.int64_data().begin(),
                              tensor.int64_data().end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<int64_t>(data)));
  }
  case ::onnx::TensorProto::INT32:
  case ::onnx::TensorProto::INT16:
  case ::onnx::TensorProto::INT8:
  case ::onnx::TensorProto::UINT8:
  case ::onnx::TensorProto::UINT16:
  case ::onnx::TensorProto::BOOL:
  case ::onnx::TensorProto::FLOAT16:
  case ::onnx::TensorProto::BFLOAT16: {
    // These are stored widened in int32_data (16-bit floats as raw bits).
    if (failed(checkCount(tensor.int32_data_size())))
      return failure();
    SmallVector<APInt> data;
    for (int32_t value : tensor.int32_data())
      data.push_back(APInt(bitWidth, static_cast<uint64_t>(value),
                           /*isSigned=*/false, /*implicitTrunc=*/true));
    if (isa<FloatType>(elementType)) {
      SmallVector<APFloat> floats;
      for (const APInt &bits : data)
        floats.push_back(
            APFloat(cast<FloatType>(elementType).getFloatSemantics(), bits));
      return ElementsAttr(DenseElementsAttr::get(type, floats));
    }
    return ElementsAttr(DenseElementsAttr::get(type, data));
  }
  case ::onnx::TensorProto::UINT32:
  case ::onnx::TensorProto::UINT64: {
    if (failed(checkCount(tensor.uint64_data_size())))
      return failure();
    SmallVector<APInt> data;
    for (uint64_t value : tensor.uint64_data())
      data.push_back(APInt(bitWidth, value, false, true));
    return ElementsAttr(DenseElementsAttr::get(type, data));
  }
  default:
    emitError(loc) << "tensor '" << tensor.name() << "' has unsupported "
                   << dataTypeName(tensor.data_type());
    return failure();
  }
}

FailureOr<Attribute>
Importer::convertAttribute(const ::onnx::AttributeProto &attr, Location loc) {
  switch (attr.type()) {
  case ::onnx::AttributeProto::INT:
    return Attribute(builder.getI64IntegerAttr(attr.i()));
  case ::onnx::AttributeProto::FLOAT:
    return Attribute(builder.getF32FloatAttr(attr.f()));
  case ::onnx::AttributeProto::STRING:
    return Attribute(builder.getStringAttr(attr.s()));
  case ::onnx::AttributeProto::INTS: {
    SmallVector<int64_t> values(attr.ints().begin(), attr.ints().end());
    return Attribute(builder.getDenseI64ArrayAttr(values));
  }
  case ::onnx::AttributeProto::FLOATS: {
    SmallVector<float> values(attr.floats().begin(), attr.floats().end());
    return Attribute(builder.getDenseF32ArrayAttr(values));
  }
  case ::onnx::AttributeProto::STRINGS: {
    SmallVector<Attribute> values;
    for (const auto &s : attr.strings())
      values.push_back(builder.getStringAttr(s));
    return Attribute(builder.getArrayAttr(values));
  }
  case ::onnx::AttributeProto::TENSOR: {
    FailureOr<ElementsAttr> tensor = convertTensor(attr.t(), loc);
    if (failed(tensor))
      return failure();
    return Attribute(*tensor);
  }
  default:
    emitError(loc) << "attribute '" << attr.name() << "' has unsupported type "
                   << ::onnx::AttributeProto::AttributeType_Name(attr.type());
    return failure();
  }
}

Value Importer::getNoValue() {
  if (!noValue)
    noValue = onnx::NoValueOp::create(builder, builder.getUnknownLoc(),
                                      builder.getNoneType());
  return noValue;
}

LogicalResult Importer::importConstant(const ::onnx::NodeProto &node,
                                       StringRef nodeName) {
  Location loc = nameLoc(nodeName);
  auto error = [&]() {
    return emitError(loc) << "node '" << nodeName << "' (onnx.Constant): ";
  };
  if (node.input_size() != 0 || node.output_size() != 1) {
    error() << "must have no inputs and one output";
    return failure();
  }
  if (node.attribute_size() != 1) {
    error() << "must have exactly one of the attributes value, value_float, "
               "value_floats, value_int, value_ints, value_string, "
               "value_strings, sparse_value; got "
            << node.attribute_size();
    return failure();
  }
  const ::onnx::AttributeProto &attr = node.attribute(0);
  const std::string &name = attr.name();
  auto wrongType = [&]() {
    error() << "attribute '" << name << "' has type "
            << ::onnx::AttributeProto::AttributeType_Name(attr.type());
    return failure();
  };
  ElementsAttr value;
  if (name == "value") {
    if (attr.type() != ::onnx::AttributeProto::TENSOR)
      return wrongType();
    FailureOr<ElementsAttr> tensor = convertTensor(attr.t(), loc);
    if (failed(tensor))
      return failure();
    value = *tensor;
  } else if (name == "value_float" || name == "value_floats") {
    bool scalar = name == "value_float";
    if (attr.type() != (scalar ? ::onnx::AttributeProto::FLOAT
                               : ::onnx::AttributeProto::FLOATS))
      return wrongType();
    SmallVector<float> data;
    if (scalar)
      data.push_back(attr.f());
    else
      data.assign(attr.floats().begin(), attr.floats().end());
    auto type = RankedTensorType::get(
        scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)data.size()},
        builder.getF32Type());
    value = DenseElementsAttr::get(type, ArrayRef<float>(data));
  } else if (name == "value_int" || name == "value_ints") {
    bool scalar = name == "value_int";
    if (attr.type() !=
        (scalar ? ::onnx::AttributeProto::INT : ::onnx::AttributeProto::INTS))
      return wrongType();
    SmallVector<int64_t> data;
    if (scalar)
      data.push_back(attr.i());
    else
      data.assign(attr.ints().begin(), attr.ints().end());
    auto type = RankedTensorType::get(
        scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)data.size()},
        builder.getI64Type());
    value = DenseElementsAttr::get(type, ArrayRef<int64_t>(data));
  } else if (name == "value_string" || name == "value_strings") {
    error() << "string constants ('" << name
            << "') are not supported (odt has no string tensors)";
    return failure();
  } else if (name == "sparse_value") {
    error() << "sparse constants ('sparse_value') are not supported";
    return failure();
  } else {
    error() << "unsupported attribute '" << name << "'";
    return failure();
  }
  auto constant = onnx::ConstantOp::create(
      builder, loc, cast<RankedTensorType>(value.getType()), value);
  if (failed(onnx::inferOp(constant, shapes)))
    return failure();
  if (!node.output(0).empty())
    values[node.output(0)] = {constant.getResult()};
  return success();
}

/// CastLike(input, target_type) is Cast(input) to the element type of
/// target_type, which is known once target_type is imported (PyTorch's
/// dynamo exporter writes CastLike for every scalar it adapts).
LogicalResult Importer::importCastLike(const ::onnx::NodeProto &node,
                                       StringRef nodeName) {
  Location loc = nameLoc(nodeName);
  if (node.input_size() != 2 || node.output_size() != 1) {
    emitError(loc) << "node '" << nodeName
                   << "' (onnx.CastLike): needs two inputs and one output";
    return failure();
  }
  Type element;
  const std::string &like = node.input(1);
  if (auto it = values.find(like); it != values.end() && it->second.size() == 1)
    element = cast<ShapedType>(it->second.front().getType()).getElementType();
  else if (const ::onnx::TensorProto *init = initializers.lookup(like))
    return importCastTo(node, nodeName, init->data_type());
  if (!element) {
    emitError(loc) << "node '" << nodeName << "' (onnx.CastLike): input '"
                   << like << "' is not defined";
    return failure();
  }
  return importCastTo(node, nodeName, getONNXDataType(element));
}

LogicalResult Importer::importCastTo(const ::onnx::NodeProto &node,
                                     StringRef nodeName, int32_t dataType) {
  ::onnx::NodeProto cast = node;
  cast.set_op_type("Cast");
  cast.mutable_input()->RemoveLast();
  ::onnx::AttributeProto *to = cast.add_attribute();
  to->set_name("to");
  to->set_type(::onnx::AttributeProto::INT);
  to->set_i(dataType);
  return importNode(cast, nodeName);
}

LogicalResult Importer::importNode(const ::onnx::NodeProto &node,
                                   StringRef nodeName) {
  Location loc = nameLoc(nodeName);
  std::string opName = getOpName(node.domain(), node.op_type());
  if (opName == "onnx.Constant")
    return importConstant(node, nodeName);
  if (opName == "onnx.CastLike")
    return importCastLike(node, nodeName);
  auto registered = *RegisteredOperationName::lookup(opName, context);
  auto error = [&]() {
    return emitError(loc) << "node '" << nodeName << "' (" << opName << "): ";
  };

  OperationState state(loc, registered);
  for (const auto &input : node.input()) {
    if (input.empty()) {
      state.operands.push_back(getNoValue());
      continue;
    }
    auto it = values.find(input);
    if (it == values.end()) {
      if (auto init = initializers.lookup(input)) {
        FailureOr<ElementsAttr> value = convertTensor(*init, nameLoc(input));
        if (failed(value))
          return failure();
        auto constant = onnx::ConstantOp::create(
            builder, nameLoc(input), cast<RankedTensorType>(value->getType()),
            *value);
        shapes.setShape(constant,
                        shapes.shapeFromType(constant.getType(), input),
                        constant.getType().getElementType());
        it = values.insert({input, {constant.getResult()}}).first;
      } else {
        error() << "input '" << input << "' is not defined";
        return failure();
      }
    }
    state.operands.append(it->second.begin(), it->second.end());
  }
  auto *iface = registered.getInterface<onnx::ONNXOpInterface>();
  if (!iface) {
    error() << "is not an ONNX node op";
    return failure();
  }
  unsigned expectedInputs = iface->getONNXInputCount();
  bool variadic = iface->hasVariadicONNXInputs();
  if (!variadic) {
    if (state.operands.size() > expectedInputs) {
      error() << "has " << state.operands.size() << " inputs, at most "
              << expectedInputs << " are defined";
      return failure();
    }
    while (state.operands.size() < expectedInputs)
      state.operands.push_back(getNoValue());
  }

  ArrayRef<StringAttr> knownAttrs = registered.getAttributeNames();
  for (const auto &attr : node.attribute()) {
    bool known = llvm::any_of(
        knownAttrs, [&](StringAttr name) { return name == attr.name(); });
    // generate-artifacts' own mark on a Gather that PyTorch ran as an
    // embedding with padding_idx (read by Gather's gradient rule, never
    // written back to ONNX).
    if (!known && attr.name() == kPaddingIndexAttr &&
        node.op_type() == "Gather" &&
        attr.type() == ::onnx::AttributeProto::INT) {
      state.addAttribute(attr.name(), builder.getI64IntegerAttr(attr.i()));
      continue;
    }
    if (!known) {
      error() << "unsupported attribute '" << attr.name() << "'";
      return failure();
    }
    FailureOr<Attribute> value = convertAttribute(attr, loc);
    if (failed(value))
      return failure();
    // The kind is checked here, before the op exists: an attribute of
    // another kind would not become the op's property, and the generated
    // getters would read a null attribute (a crash), or the default would
    // silently take its place.
    NamedAttrList single;
    single.set(attr.name(), *value);
    if (failed(registered.verifyInherentAttrs(single, [&]() {
          return error() << "the model gives attribute '" << attr.name()
                         << "' as "
                         << ::onnx::AttributeProto::AttributeType_Name(
                                attr.type())
                         << ", and ";
        })))
      return failure();
    state.addAttribute(attr.name(), *value);
  }

  // Results: the op's ONNX outputs; the node may leave trailing ones unused.
  // Placeholder types satisfy the (AnyTensor) result constraints until shape
  // inference sets the real ones.
  // Ops over sequences (the optimizers) have one result group per sequence
  // output, as long as the sequences they read; their single results come
  // first.
  // An op whose only ONNX output is variadic (Split) without a sequence
  // input gets one result per node output.
  unsigned numOutputs = iface->getONNXOutputCount();
  unsigned groupSize = 1;
  bool perOutputResults = false;
  if (iface->hasVariadicONNXOutputs()) {
    auto firstSequence =
        llvm::find_if(node.input(), [&](const std::string &in) {
          return sequenceNames.contains(in);
        });
    if (firstSequence != node.input().end()) {
      groupSize = values[*firstSequence].size();
    } else if (numOutputs == 1) {
      perOutputResults = true;
    } else {
      error() << "has a variable number of results and no sequence input "
                 "to size them";
      return failure();
    }
  }
  if (!perOutputResults && node.output_size() > static_cast<int>(numOutputs)) {
    error() << "has " << node.output_size() << " outputs, at most "
            << numOutputs << " are defined";
    return failure();
  }
  // Sequence ops: the optimizers have one single result (the updated flag)
  // before their groups; an op whose one output is a sequence
  // (InplaceClipGradNorm) has only the group.
  unsigned numSingle = perOutputResults                   ? node.output_size()
                       : !iface->hasVariadicONNXOutputs() ? numOutputs
                       : numOutputs > 1                   ? 1
                                                          : 0;
  unsigned numResults = perOutputResults
                            ? numSingle
                            : numSingle + (numOutputs - numSingle) * groupSize;
  state.types.assign(numResults, UnrankedTensorType::get(builder.getF32Type()));
  Operation *op = builder.create(state);

  // Operands and attributes are checked before inference, which relies on
  // the invariants the verifiers establish (ranks, attribute ranges).
  if (failed(op->getName().verifyInvariants(op)) ||
      failed(onnx::inferOp(op, shapes)))
    return failure();
  for (OpResult result : op->getResults())
    if (auto type = dyn_cast<RankedTensorType>(result.getType()))
      if (failed(checkByteSize(type, [&]() {
            return error() << "output " << result.getResultNumber();
          })))
        return failure();
  // Small integer tensors whose every value shape inference knows (shape
  // computations over static dims, Reshape of constants) become constants:
  // the ops that need constant operands (axes, pads, target shapes) then
  // see one, whichever way the exporter wrote the computation.
  SmallVector<Value> results(op->getResults());
  for (Value &result : results) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || !type.hasStaticShape() ||
        !isa<IntegerType>(type.getElementType()) ||
        type.getElementTypeBitWidth() < 8)
      continue;
    std::optional<SmallVector<int64_t>> known = shapes.getStaticValues(result);
    if (!known || static_cast<int64_t>(known->size()) != type.getNumElements())
      continue;
    SmallVector<APInt> bits;
    for (int64_t v : *known)
      bits.push_back(APInt(type.getElementTypeBitWidth(), v, /*isSigned=*/true,
                           /*implicitTrunc=*/true));
    auto constant = onnx::ConstantOp::create(
        builder, loc, type, DenseElementsAttr::get(type, bits));
    shapes.setShape(constant, shapes.getShape(result), type.getElementType());
    result = constant.getResult();
  }
  if (options.keepValueNames && !perOutputResults && groupSize == 1) {
    SmallVector<Attribute> names(op->getNumResults(),
                                 builder.getStringAttr(""));
    for (auto [index, output] : llvm::enumerate(node.output()))
      if (index < names.size())
        names[index] = builder.getStringAttr(output);
    op->setAttr(kResultNamesAttr, builder.getArrayAttr(names));
  }
  for (auto [index, output] : llvm::enumerate(node.output())) {
    if (output.empty())
      continue;
    if (index < numSingle) {
      values[output] = {results[index]};
      continue;
    }
    unsigned first = numSingle + (index - numSingle) * groupSize;
    SmallVector<Value> group(op->getResults().slice(first, groupSize));
    values[output] = group;
    sequenceNames.insert(output);
  }
  return success();
}

FailureOr<func::FuncOp> Importer::run(StringRef funcName) {
  const ::onnx::GraphProto &graph = model.graph();
  if (failed(checkOpsets()) || failed(checkSupportedNodes()))
    return failure();
  for (const auto &init : graph.initializer())
    initializers[init.name()] = &init;

  // Arguments: graph inputs that are not initializers.
  SmallVector<Type> argTypes;
  SmallVector<NamedAttrList> argAttrs;
  struct PendingArg {
    std::string name;
    std::vector<std::string> dims;
  };
  std::vector<PendingArg> pending;
  SmallVector<std::pair<std::string, SmallVector<int>>> sequenceArgs;
  for (const auto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    auto sequence = options.sequences.find(input.name());
    if (sequence != options.sequences.end()) {
      const SequenceExpansion &expansion = sequence->second;
      SmallVector<int> indices;
      for (size_t i = 0; i < expansion.elementNames.size(); ++i) {
        indices.push_back(argTypes.size());
        argTypes.push_back(expansion.elementTypes[i]);
        NamedAttrList attrs;
        attrs.set(kNameAttr, builder.getStringAttr(expansion.elementNames[i]));
        attrs.set(kRoleAttr,
                  builder.getStringAttr(getRoleName(expansion.role)));
        attrs.set(kParamAttr,
                  builder.getI64IntegerAttr(expansion.parameterIndices[i]));
        argAttrs.push_back(attrs);
        pending.push_back(
            {expansion.elementNames[i], expansion.elementDims[i]});
      }
      sequenceArgs.push_back({input.name(), indices});
      continue;
    }
    std::vector<std::string> dims;
    FailureOr<RankedTensorType> type =
        convertTensorType(input.type(), input.name(), dims);
    if (failed(type))
      return failure();
    auto [role, param] = options.classifyInput(input.name());
    NamedAttrList attrs;
    attrs.set(kNameAttr, builder.getStringAttr(input.name()));
    attrs.set(kRoleAttr, builder.getStringAttr(getRoleName(role)));
    if (param >= 0)
      attrs.set(kParamAttr, builder.getI64IntegerAttr(param));
    argTypes.push_back(*type);
    argAttrs.push_back(attrs);
    pending.push_back({input.name(), dims});
  }

  // Initializers promoted to parameters follow the graph inputs.
  for (const auto &[name, param] : options.initializerParameters) {
    const ::onnx::TensorProto *init = initializers.lookup(name);
    if (!init) {
      emitGraphError() << "no initializer '" << name << "'";
      return failure();
    }
    Type elementType = convertElementType(context, init->data_type());
    if (!elementType) {
      emitGraphError() << "initializer '" << name << "' has unsupported "
                       << dataTypeName(init->data_type());
      return failure();
    }
    SmallVector<int64_t> shape(init->dims().begin(), init->dims().end());
    std::vector<std::string> dims;
    for (int64_t dim : shape)
      dims.push_back(std::to_string(dim));
    NamedAttrList attrs;
    attrs.set(kNameAttr, builder.getStringAttr(name));
    attrs.set(kRoleAttr,
              builder.getStringAttr(getRoleName(ArgRole::Parameter)));
    attrs.set(kParamAttr, builder.getI64IntegerAttr(param));
    argTypes.push_back(RankedTensorType::get(shape, elementType));
    argAttrs.push_back(attrs);
    pending.push_back({name, dims});
    initializers.erase(name);
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, nameLoc(funcName), funcName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    arg.setLoc(nameLoc(pending[index].name));
    // Dims: a dim_param names a symbol shared by every input using it; an
    // unnamed dynamic dim gets its own symbol.
    onnx::Shape shape;
    for (auto [d, dim] : llvm::enumerate(pending[index].dims)) {
      int64_t size = cast<RankedTensorType>(arg.getType()).getDimSize(d);
      if (!ShapedType::isDynamic(size))
        shape.push_back(onnx::Dim::size(size));
      else if (!dim.empty())
        shape.push_back(shapes.namedSymbol(dim));
      else
        shape.push_back(
            shapes.newSymbol(pending[index].name + "_dim" + std::to_string(d)));
    }
    shapes.setShape(arg, shape, onnx::ShapeContext::getElementType(arg));
    values[pending[index].name] = {arg};
  }
  for (auto &[name, indices] : sequenceArgs) {
    SmallVector<Value> elements;
    for (int index : indices)
      elements.push_back(func.getArgument(index));
    values[name] = elements;
    sequenceNames.insert(name);
  }

  FailureOr<std::vector<const ::onnx::NodeProto *>> order = sortNodes();
  if (failed(order))
    return failure();
  bool anyFailed = false;
  llvm::StringMap<int> unnamedCount;
  for (const ::onnx::NodeProto *node : *order) {
    std::string nodeName = node->name();
    if (nodeName.empty())
      nodeName = node->op_type() + "_" +
                 std::to_string(unnamedCount[node->op_type()]++);
    bool inputsOk = llvm::all_of(node->input(), [&](const std::string &in) {
      return in.empty() || values.count(in) || initializers.count(in);
    });
    if (!inputsOk) {
      anyFailed = true; // an earlier node failed; it was reported
      continue;
    }
    if (failed(importNode(*node, nodeName)))
      anyFailed = true;
  }
  if (anyFailed)
    return failure();

  // Results: the graph outputs, each named once.
  if (graph.output_size() == 0) {
    emitGraphError() << "the graph has no outputs";
    return failure();
  }
  llvm::StringSet<> outputNames;
  for (const auto &output : graph.output())
    if (!outputNames.insert(output.name()).second) {
      emitGraphError() << "graph output '" << output.name()
                       << "' is listed twice";
      return failure();
    }
  SmallVector<Value> results;
  SmallVector<NamedAttrList> resultAttrs;
  for (const auto &output : graph.output()) {
    auto it = values.find(output.name());
    if (it == values.end() || it->second.size() != 1) {
      emitGraphError() << "graph output '" << output.name()
                       << "' is not computed by any node";
      return failure();
    }
    Value value = it->second.front();
    if (isa<BlockArgument>(value) || value.getDefiningOp<onnx::ConstantOp>()) {
      // Outputs are written into caller buffers: copy through Identity so
      // every result has a producing op of its own.
      auto identity = onnx::IdentityOp::create(builder, nameLoc(output.name()),
                                               value.getType(), value);
      (void)identity.inferShapes(shapes);
      value = identity;
    }
    // A declared output type must agree with the inferred one.
    if (output.type().has_tensor_type()) {
      Type declared =
          convertElementType(context, output.type().tensor_type().elem_type());
      if (declared && declared != onnx::ShapeContext::getElementType(value)) {
        emitGraphError() << "graph output '" << output.name()
                         << "' is declared " << declared << " but computes "
                         << onnx::ShapeContext::getElementType(value);
        return failure();
      }
    }
    results.push_back(value);
    NamedAttrList attrs;
    attrs.set(kNameAttr, builder.getStringAttr(output.name()));
    attrs.set(kRoleAttr, builder.getStringAttr(getRoleName(
                             options.classifyOutput(output.name()))));
    resultAttrs.push_back(attrs);
  }
  func::ReturnOp::create(builder, fileLoc(), results);

  // Dims bound late (an input's dim fixed by a Gemm downstream) reach every
  // value, argument and result now.
  shapes.refineTypes();
  SmallVector<Type> resultTypes;
  for (Value result : results)
    resultTypes.push_back(result.getType());
  func.setFunctionType(
      builder.getFunctionType(body->getArgumentTypes(), resultTypes));

  auto dimsAttr = [&](Value value) {
    SmallVector<Attribute> dims;
    for (onnx::Dim dim : shapes.getShape(value)) {
      if (dim.isStatic())
        dims.push_back(builder.getI64IntegerAttr(dim.getSize()));
      else
        dims.push_back(builder.getStringAttr(shapes.symbolName(dim)));
    }
    return builder.getArrayAttr(dims);
  };
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    argAttrs[index].set(kDimsAttr, dimsAttr(arg));
    func.setArgAttrs(index, argAttrs[index].getDictionary(context));
  }
  for (auto [index, result] : llvm::enumerate(results)) {
    resultAttrs[index].set(kDimsAttr, dimsAttr(result));
    func.setResultAttrs(index, resultAttrs[index].getDictionary(context));
  }

  // Divisibility the symbols cannot express (a Reshape's -1), on the
  // symbols as resolved now; the runtime checks them once inputs bind them.
  SmallVector<Attribute> requirements;
  for (const onnx::ShapeContext::Divisibility &requirement :
       shapes.getDivisibilityRequirements()) {
    onnx::Dim dividend = shapes.resolve(requirement.dividend);
    int64_t multiple =
        requirement.divisor /
        std::gcd(dividend.getCoefficient(), requirement.divisor);
    if (multiple == 1)
      continue;
    if (dividend.isStatic()) {
      emitGraphError() << requirement.reason << ", and "
                       << dividend.getCoefficient() << " is not a multiple of "
                       << requirement.divisor;
      return failure();
    }
    SmallVector<Attribute> names;
    for (int symbol : dividend.getSymbols())
      names.push_back(
          builder.getStringAttr(shapes.symbolName(onnx::Dim::symbol(symbol))));
    requirements.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr("symbols", builder.getArrayAttr(names)),
         builder.getNamedAttr("multiple_of",
                              builder.getI64IntegerAttr(multiple)),
         builder.getNamedAttr("reason",
                              builder.getStringAttr(requirement.reason))}));
  }
  if (!requirements.empty())
    func->setAttr(kDivisibilityAttr, builder.getArrayAttr(requirements));
  return func;
}

FailureOr<func::FuncOp> importGraph(const ::onnx::ModelProto &model,
                                    ModuleOp module, StringRef funcName,
                                    const GraphImportOptions &options) {
  Importer importer(model, module, options);
  return importer.run(funcName);
}

} // namespace odt
