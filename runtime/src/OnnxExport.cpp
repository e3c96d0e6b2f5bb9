#include "OnnxExport.h"

#include "CompiledModel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

// ONNX raw_data is little-endian; the runtime copies parameter bytes as they
// lie in memory.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "OnnxExport writes tensor data as it lies in memory: little-endian hosts only"
#endif

namespace odt {
namespace protowire {

namespace {

constexpr uint32_t kMaxFieldNumber = (1u << 29) - 1;

bool readVarint(const uint8_t *data, size_t size, size_t &pos, uint64_t &value) {
  value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos >= size)
      return false;
    uint8_t byte = data[pos++];
    value |= uint64_t(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80))
      return true;
  }
  return false; // more than 10 bytes
}

} // namespace

Result<std::vector<Field>> parseMessage(const uint8_t *data, size_t size,
                                        const char *what) {
  std::vector<Field> fields;
  size_t pos = 0;
  auto fail = [&](size_t at, const std::string &why) {
    return Status::error(std::string("malformed ") + what + ": " + why +
                         " at byte " + std::to_string(at));
  };
  while (pos < size) {
    size_t start = pos;
    uint64_t tag;
    if (!readVarint(data, size, pos, tag))
      return fail(start, "truncated or overlong field tag");
    uint64_t number = tag >> 3;
    if (number == 0 || number > kMaxFieldNumber)
      return fail(start, "field number " + std::to_string(number));
    Field field;
    field.number = static_cast<uint32_t>(number);
    switch (tag & 7) {
    case 0:
      field.type = WireType::Varint;
      if (!readVarint(data, size, pos, field.value))
        return fail(start, "truncated or overlong varint of field " +
                               std::to_string(number));
      break;
    case 1:
    case 5: {
      size_t width = (tag & 7) == 1 ? 8 : 4;
      field.type = width == 8 ? WireType::Fixed64 : WireType::Fixed32;
      if (size - pos < width)
        return fail(start, "truncated fixed-size field " + std::to_string(number));
      for (size_t i = 0; i < width; ++i)
        field.value |= uint64_t(data[pos + i]) << (8 * i);
      pos += width;
      break;
    }
    case 2: {
      field.type = WireType::Bytes;
      uint64_t length;
      if (!readVarint(data, size, pos, length))
        return fail(start, "truncated length of field " + std::to_string(number));
      if (length > size - pos)
        return fail(start, "field " + std::to_string(number) + " claims " +
                               std::to_string(length) + " bytes, " +
                               std::to_string(size - pos) + " remain");
      field.data = data + pos;
      field.size = static_cast<size_t>(length);
      pos += field.size;
      break;
    }
    default:
      return fail(start, "unsupported wire type " + std::to_string(tag & 7) +
                             " of field " + std::to_string(number));
    }
    field.raw = data + start;
    field.rawSize = pos - start;
    fields.push_back(field);
  }
  return fields;
}

void appendVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

std::string &Writer::tail() {
  if (segments.empty() || segments.back().borrowed)
    segments.emplace_back();
  return segments.back().owned;
}

void Writer::varint(uint32_t number, uint64_t value) {
  std::string &out = tail();
  size_t before = out.size();
  appendVarint(out, uint64_t(number) << 3);
  appendVarint(out, value);
  total += out.size() - before;
}

void Writer::bytes(uint32_t number, std::string_view payload) {
  std::string &out = tail();
  size_t before = out.size();
  appendVarint(out, (uint64_t(number) << 3) | 2);
  appendVarint(out, payload.size());
  out.append(payload.data(), payload.size());
  total += out.size() - before;
}

void Writer::borrowedBytes(uint32_t number, const void *data, size_t size) {
  std::string &out = tail();
  size_t before = out.size();
  appendVarint(out, (uint64_t(number) << 3) | 2);
  appendVarint(out, size);
  total += out.size() - before;
  if (size == 0)
    return;
  Segment segment;
  segment.borrowed = data;
  segment.borrowedSize = size;
  segments.push_back(std::move(segment));
  total += size;
}

void Writer::borrowedRaw(const void *data, size_t size) {
  if (size == 0)
    return;
  Segment segment;
  segment.borrowed = data;
  segment.borrowedSize = size;
  segments.push_back(std::move(segment));
  total += size;
}

void Writer::message(uint32_t number, Writer &&message) {
  std::string &out = tail();
  size_t before = out.size();
  appendVarint(out, (uint64_t(number) << 3) | 2);
  appendVarint(out, message.total);
  total += out.size() - before;
  for (Segment &segment : message.segments)
    segments.push_back(std::move(segment));
  total += message.total;
  message.segments.clear();
  message.total = 0;
}

void Writer::copy(const Field &field) {
  raw(std::string_view(reinterpret_cast<const char *>(field.raw), field.rawSize));
}

void Writer::raw(std::string_view bytes) {
  tail().append(bytes.data(), bytes.size());
  total += bytes.size();
}

void Writer::zeros(size_t count) {
  tail().append(count, '\0');
  total += count;
}

std::vector<ByteSpan> Writer::pieces() const {
  std::vector<ByteSpan> result;
  for (const Segment &segment : segments) {
    if (segment.borrowed)
      result.push_back({segment.borrowed, segment.borrowedSize});
    else if (!segment.owned.empty())
      result.push_back({segment.owned.data(), segment.owned.size()});
  }
  return result;
}

std::string Writer::str() const {
  std::string result;
  result.reserve(static_cast<size_t>(total));
  for (const ByteSpan &piece : pieces())
    result.append(static_cast<const char *>(piece.data), piece.size);
  return result;
}

} // namespace protowire

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

namespace {

using protowire::Field;
using protowire::WireType;
using protowire::Writer;

// onnx.proto field numbers.
namespace model_field {
constexpr uint32_t kGraph = 7;
} // namespace model_field
namespace graph_field {
constexpr uint32_t kNode = 1, kName = 2, kInitializer = 5, kDocString = 10,
                   kInput = 11, kOutput = 12, kValueInfo = 13,
                   kSparseInitializer = 15;
} // namespace graph_field
namespace node_field {
constexpr uint32_t kInput = 1, kOutput = 2, kName = 3, kAttribute = 5;
} // namespace node_field
namespace attribute_field {
constexpr uint32_t kGraph = 6, kGraphs = 11;
} // namespace attribute_field
namespace value_info_field {
constexpr uint32_t kName = 1, kType = 2;
} // namespace value_info_field
namespace type_field {
constexpr uint32_t kTensorType = 1;         // TypeProto
constexpr uint32_t kElemType = 1, kShape = 2; // TypeProto.Tensor
constexpr uint32_t kDim = 1;                // TensorShapeProto
constexpr uint32_t kDimValue = 1; // Dimension (dim_param = 2)
} // namespace type_field
namespace tensor_field {
constexpr uint32_t kDims = 1, kDataType = 2, kName = 8, kRawData = 9,
                   kExternalData = 13, kDataLocation = 14;
constexpr uint64_t kExternal = 1;
} // namespace tensor_field
namespace sparse_field {
constexpr uint32_t kValues = 1;
} // namespace sparse_field
namespace entry_field {
constexpr uint32_t kKey = 1, kValue = 2;
} // namespace entry_field

/// Subgraphs nest at most this deep (bounds recursion on hostile input).
constexpr int kMaxSubgraphDepth = 32;

/// Whether the payload of a Bytes field is a string we accept as a name.
Result<std::string_view> stringOf(const Field &field, const char *what) {
  if (field.type != WireType::Bytes)
    return Status::error(std::string("malformed ") + what +
                         ": a name is not length-delimited");
  return field.bytes();
}

/// The first Bytes field `number` of a message, as a string; empty if absent.
Result<std::string_view> findString(const std::vector<Field> &fields,
                                    uint32_t number, const char *what) {
  std::string_view result;
  for (const Field &field : fields)
    if (field.number == number) {
      Result<std::string_view> value = stringOf(field, what);
      if (!value)
        return value;
      result = *value; // the last one wins, as in protobuf
    }
  return result;
}

Result<std::string_view> messageName(const Field &field, uint32_t nameField,
                                     const char *what) {
  if (field.type != WireType::Bytes)
    return Status::error(std::string("malformed ") + what +
                         ": not a length-delimited message");
  Result<std::vector<Field>> fields = protowire::parseMessage(field.data, field.size, what);
  if (!fields)
    return fields.getStatus();
  return findString(*fields, nameField, what);
}

/// Adds every value name read anywhere inside the subgraphs of `attribute`
/// (node inputs, recursively): values a subgraph takes from the outer scope
/// are not node inputs, so pruning must keep their producers. A superset is
/// harmless (it only keeps more).
Status collectSubgraphReads(const Field &attribute, int depth,
                            std::vector<std::string_view> &reads) {
  if (depth > kMaxSubgraphDepth)
    return Status::error("malformed template: subgraphs nest deeper than " +
                         std::to_string(kMaxSubgraphDepth));
  if (attribute.type != WireType::Bytes)
    return Status::error("malformed AttributeProto");
  Result<std::vector<Field>> fields =
      protowire::parseMessage(attribute.data, attribute.size, "AttributeProto");
  if (!fields)
    return fields.getStatus();
  for (const Field &field : *fields) {
    if (field.number != attribute_field::kGraph &&
        field.number != attribute_field::kGraphs)
      continue;
    if (field.type != WireType::Bytes)
      return Status::error("malformed AttributeProto: a graph is not a message");
    Result<std::vector<Field>> graph =
        protowire::parseMessage(field.data, field.size, "GraphProto");
    if (!graph)
      return graph.getStatus();
    for (const Field &nodeField : *graph) {
      if (nodeField.number != graph_field::kNode)
        continue;
      if (nodeField.type != WireType::Bytes)
        return Status::error("malformed GraphProto: a node is not a message");
      Result<std::vector<Field>> node =
          protowire::parseMessage(nodeField.data, nodeField.size, "NodeProto");
      if (!node)
        return node.getStatus();
      for (const Field &item : *node) {
        if (item.number == node_field::kInput) {
          Result<std::string_view> name = stringOf(item, "NodeProto");
          if (!name)
            return name.getStatus();
          if (!name->empty())
            reads.push_back(*name);
        } else if (item.number == node_field::kAttribute) {
          ODT_RETURN_IF_ERROR(collectSubgraphReads(item, depth + 1, reads));
        }
      }
    }
  }
  return Status::ok();
}

struct NodeInfo {
  const Field *field;
  std::string name;
  std::vector<std::string_view> inputs; // explicit and subgraph reads
  std::vector<std::string_view> outputs;
};

struct TensorInfo {
  const Field *field;
  std::string_view name;
};

/// Element type and dims (-1 for a symbolic or unknown dim) of a tensor
/// ValueInfoProto; hasType false if it has none.
struct DeclaredType {
  bool hasType = false;
  int32_t elemType = 0;
  bool hasShape = false;
  std::vector<int64_t> dims;
};

Result<DeclaredType> declaredType(const Field &valueInfo) {
  DeclaredType result;
  Result<std::vector<Field>> info =
      protowire::parseMessage(valueInfo.data, valueInfo.size, "ValueInfoProto");
  if (!info)
    return info.getStatus();
  for (const Field &field : *info) {
    if (field.number != value_info_field::kType || field.type != WireType::Bytes)
      continue;
    Result<std::vector<Field>> type =
        protowire::parseMessage(field.data, field.size, "TypeProto");
    if (!type)
      return type.getStatus();
    for (const Field &typeField : *type) {
      if (typeField.number != type_field::kTensorType ||
          typeField.type != WireType::Bytes)
        continue;
      Result<std::vector<Field>> tensor =
          protowire::parseMessage(typeField.data, typeField.size, "TypeProto.Tensor");
      if (!tensor)
        return tensor.getStatus();
      result.hasType = true;
      for (const Field &item : *tensor) {
        if (item.number == type_field::kElemType && item.type == WireType::Varint)
          result.elemType = static_cast<int32_t>(item.value);
        if (item.number != type_field::kShape || item.type != WireType::Bytes)
          continue;
        result.hasShape = true;
        result.dims.clear();
        Result<std::vector<Field>> shape =
            protowire::parseMessage(item.data, item.size, "TensorShapeProto");
        if (!shape)
          return shape.getStatus();
        for (const Field &dimField : *shape) {
          if (dimField.number != type_field::kDim || dimField.type != WireType::Bytes)
            continue;
          Result<std::vector<Field>> dim = protowire::parseMessage(
              dimField.data, dimField.size, "TensorShapeProto.Dimension");
          if (!dim)
            return dim.getStatus();
          int64_t size = -1;
          for (const Field &d : *dim)
            if (d.number == type_field::kDimValue && d.type == WireType::Varint)
              size = static_cast<int64_t>(d.value);
          result.dims.push_back(size);
        }
      }
    }
  }
  return result;
}

/// A ValueInfoProto for an initializer named as an output: its dtype and
/// dims from the TensorProto.
Result<Writer> valueInfoOfTensor(const Field &tensor, std::string_view name) {
  Result<std::vector<Field>> fields =
      protowire::parseMessage(tensor.data, tensor.size, "TensorProto");
  if (!fields)
    return fields.getStatus();
  Writer shape;
  uint64_t dataType = 0;
  for (const Field &field : *fields) {
    if (field.number == tensor_field::kDataType && field.type == WireType::Varint)
      dataType = field.value;
    if (field.number != tensor_field::kDims)
      continue;
    auto addDim = [&](uint64_t value) {
      Writer dim;
      dim.varint(type_field::kDimValue, value);
      shape.message(type_field::kDim, std::move(dim));
    };
    if (field.type == WireType::Varint) {
      addDim(field.value);
    } else if (field.type == WireType::Bytes) { // packed
      size_t pos = 0;
      while (pos < field.size) {
        uint64_t value = 0;
        bool done = false;
        for (int i = 0; i < 10 && pos < field.size; ++i) {
          uint8_t byte = field.data[pos++];
          value |= uint64_t(byte & 0x7f) << (7 * i);
          if (!(byte & 0x80)) {
            done = true;
            break;
          }
        }
        if (!done)
          return Status::error("malformed TensorProto: bad packed dims");
        addDim(value);
      }
    }
  }
  Writer tensorType;
  tensorType.varint(type_field::kElemType, dataType);
  tensorType.message(type_field::kShape, std::move(shape));
  Writer type;
  type.message(type_field::kTensorType, std::move(tensorType));
  Writer info;
  info.bytes(value_info_field::kName, name);
  info.message(value_info_field::kType, std::move(type));
  return info;
}

Writer stringEntry(std::string_view key, std::string_view value) {
  Writer entry;
  entry.bytes(entry_field::kKey, key);
  entry.bytes(entry_field::kValue, value);
  return entry;
}

/// Places tensor data in the .data file and records where in `tensor`.
class ExternalData {
public:
  ExternalData(Writer &file, const std::string &location)
      : file(file), location(location) {}

  void add(Writer &tensor, const void *data, size_t size) {
    uint64_t offset = (file.size() + kExportExternalDataAlignment - 1) /
                      kExportExternalDataAlignment * kExportExternalDataAlignment;
    file.zeros(static_cast<size_t>(offset - file.size()));
    file.borrowedRaw(data, size);
    tensor.message(tensor_field::kExternalData, stringEntry("location", location));
    tensor.message(tensor_field::kExternalData,
                   stringEntry("offset", std::to_string(offset)));
    tensor.message(tensor_field::kExternalData,
                   stringEntry("length", std::to_string(size)));
    tensor.varint(tensor_field::kDataLocation, tensor_field::kExternal);
  }

private:
  Writer &file;
  const std::string &location;
};

std::string formatDims(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return text + "]";
}

} // namespace

Result<InferenceModelFiles> buildInferenceModel(
    const uint8_t *templateData, size_t templateSize,
    const std::vector<std::string> &templateParameters,
    const std::vector<std::shared_ptr<Parameter>> &parameters,
    const std::vector<std::string> &outputNames,
    const std::string &dataFileName, uint64_t externalDataThreshold) {
  if (outputNames.empty())
    return Status::error("no output names given; name at least one value of "
                         "the eval graph to export");

  // The model and its one graph.
  Result<std::vector<Field>> modelFields =
      protowire::parseMessage(templateData, templateSize, "ModelProto");
  if (!modelFields)
    return modelFields.getStatus().withContext("the export template");
  const Field *graphField = nullptr;
  for (const Field &field : *modelFields)
    if (field.number == model_field::kGraph) {
      if (graphField || field.type != WireType::Bytes)
        return Status::error("malformed export template: the model must hold "
                             "exactly one graph");
      graphField = &field;
    }
  if (!graphField)
    return Status::error("malformed export template: the model has no graph");
  Result<std::vector<Field>> graphFields =
      protowire::parseMessage(graphField->data, graphField->size, "GraphProto");
  if (!graphFields)
    return graphFields.getStatus().withContext("the export template");

  // Index the graph.
  std::vector<NodeInfo> nodes;
  std::vector<TensorInfo> initializers, sparseInitializers, inputs, outputs,
      valueInfos;
  std::vector<const Field *> otherFields;
  for (const Field &field : *graphFields) {
    switch (field.number) {
    case graph_field::kNode: {
      if (field.type != WireType::Bytes)
        return Status::error("malformed export template: a node is not a message");
      Result<std::vector<Field>> nodeFields =
          protowire::parseMessage(field.data, field.size, "NodeProto");
      if (!nodeFields)
        return nodeFields.getStatus().withContext("the export template");
      NodeInfo node{&field, "", {}, {}};
      for (const Field &item : *nodeFields) {
        if (item.number == node_field::kInput || item.number == node_field::kOutput) {
          Result<std::string_view> name = stringOf(item, "NodeProto");
          if (!name)
            return name.getStatus();
          if (name->empty())
            continue; // an absent optional input or output
          (item.number == node_field::kInput ? node.inputs : node.outputs)
              .push_back(*name);
        } else if (item.number == node_field::kName && item.type == WireType::Bytes) {
          node.name = std::string(item.bytes());
        } else if (item.number == node_field::kAttribute) {
          ODT_RETURN_IF_ERROR(collectSubgraphReads(item, 1, node.inputs));
        }
      }
      nodes.push_back(std::move(node));
      break;
    }
    case graph_field::kInitializer:
    case graph_field::kSparseInitializer: {
      Result<std::string_view> name =
          field.number == graph_field::kInitializer
              ? messageName(field, tensor_field::kName, "TensorProto")
              : Result<std::string_view>(std::string_view());
      if (field.number == graph_field::kSparseInitializer) {
        // SparseTensorProto.values is a TensorProto holding the name.
        if (field.type != WireType::Bytes)
          return Status::error("malformed export template: a sparse initializer "
                               "is not a message");
        Result<std::vector<Field>> sparse =
            protowire::parseMessage(field.data, field.size, "SparseTensorProto");
        if (!sparse)
          return sparse.getStatus();
        for (const Field &item : *sparse)
          if (item.number == sparse_field::kValues)
            name = messageName(item, tensor_field::kName, "TensorProto");
      }
      if (!name)
        return name.getStatus().withContext("the export template");
      (field.number == graph_field::kInitializer ? initializers : sparseInitializers)
          .push_back({&field, *name});
      break;
    }
    case graph_field::kInput:
    case graph_field::kOutput:
    case graph_field::kValueInfo: {
      Result<std::string_view> name =
          messageName(field, value_info_field::kName, "ValueInfoProto");
      if (!name)
        return name.getStatus().withContext("the export template");
      (field.number == graph_field::kInput    ? inputs
       : field.number == graph_field::kOutput ? outputs
                                              : valueInfos)
          .push_back({&field, *name});
      break;
    }
    case graph_field::kName:
    case graph_field::kDocString:
    default:
      otherFields.push_back(&field);
      break;
    }
  }

  // Every value of the graph: inputs, initializers and node outputs.
  std::unordered_map<std::string_view, std::vector<size_t>> producers;
  std::unordered_set<std::string_view> values;
  for (const TensorInfo &input : inputs)
    values.insert(input.name);
  for (const TensorInfo &init : initializers)
    values.insert(init.name);
  for (const TensorInfo &init : sparseInitializers)
    values.insert(init.name);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (std::string_view output : nodes[i].outputs) {
      producers[output].push_back(i);
      values.insert(output);
    }

  std::set<std::string_view> requested;
  for (const std::string &name : outputNames) {
    if (name.empty() || !values.count(name)) {
      std::string declared;
      for (const TensorInfo &output : outputs)
        declared += (declared.empty() ? "'" : ", '") + std::string(output.name) + "'";
      return Status::error("'" + name + "' is not a value of the eval graph "
                           "(not an input, initializer or node output; the "
                           "graph's outputs are " +
                           (declared.empty() ? std::string("none") : declared) + ")");
    }
    if (!requested.insert(name).second)
      return Status::error("output '" + name + "' is named twice");
  }

  // Walk back from the outputs: the nodes they need and the values read.
  std::vector<bool> keep(nodes.size(), false);
  std::unordered_set<std::string_view> needed(requested.begin(), requested.end());
  std::vector<std::string_view> work(requested.begin(), requested.end());
  while (!work.empty()) {
    std::string_view name = work.back();
    work.pop_back();
    auto it = producers.find(name);
    if (it == producers.end())
      continue;
    for (size_t index : it->second) {
      if (keep[index])
        continue;
      keep[index] = true;
      for (std::string_view input : nodes[index].inputs)
        if (needed.insert(input).second)
          work.push_back(input);
    }
  }
  std::unordered_set<std::string_view> produced;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (keep[i])
      produced.insert(nodes[i].outputs.begin(), nodes[i].outputs.end());

  // Parameters: graph inputs the template marks, turned into initializers.
  std::unordered_set<std::string_view> parameterInputs(templateParameters.begin(),
                                                       templateParameters.end());
  std::map<std::string, std::shared_ptr<Parameter>> byName;
  for (const std::shared_ptr<Parameter> &param : parameters)
    if (param)
      byName.emplace(param->name, param);
  struct ParameterInitializer {
    std::string_view name;
    const Parameter *param;
  };
  std::vector<ParameterInitializer> parameterInitializers;
  for (const std::string &name : templateParameters) {
    auto input = std::find_if(inputs.begin(), inputs.end(),
                              [&](const TensorInfo &info) { return info.name == name; });
    if (input == inputs.end())
      return Status::error("malformed export template: parameter '" + name +
                           "' is not a graph input");
    auto found = byName.find(name);
    if (found == byName.end()) {
      if (needed.count(name))
        return Status::error("the eval graph reads parameter '" + name +
                             "', which is not among the parameters given");
      continue;
    }
    const Parameter &param = *found->second;
    if (param.data.empty())
      return Status::error("parameter '" + name +
                           "' has no data (the checkpoint state is nominal); "
                           "load the parameters before exporting");
    if (!needed.count(name))
      continue;
    Result<DeclaredType> declared = declaredType(*input->field);
    if (!declared)
      return declared.getStatus().withContext("the export template");
    if (declared->hasType &&
        declared->elemType != static_cast<int32_t>(param.data.dtype()))
      return Status::error("parameter '" + name + "' is " +
                           dataTypeName(param.data.dtype()) +
                           ", the eval graph declares " +
                           dataTypeName(static_cast<DataType>(declared->elemType)));
    if (declared->hasShape) {
      bool match = declared->dims.size() == param.data.shape().size();
      for (size_t d = 0; match && d < declared->dims.size(); ++d)
        match = declared->dims[d] < 0 || declared->dims[d] == param.data.shape()[d];
      if (!match)
        return Status::error("parameter '" + name + "' has shape " +
                             formatShape(param.data.shape()) +
                             ", the eval graph declares " +
                             formatDims(declared->dims));
    }
    if (dataTypeSize(param.data.dtype()) == 0)
      return Status::error("parameter '" + name + "' has dtype " +
                           dataTypeName(param.data.dtype()) +
                           ", which export cannot write as raw data");
    parameterInitializers.push_back({input->name, &param});
  }

  // External data once the initializers exceed the threshold.
  uint64_t initializerBytes = 0;
  for (const TensorInfo &init : initializers)
    if (needed.count(init.name))
      initializerBytes += init.field->rawSize;
  for (const ParameterInitializer &p : parameterInitializers)
    initializerBytes += p.param->data.byteSize();

  InferenceModelFiles files;
  files.dataFileName = dataFileName;
  files.hasExternalData = initializerBytes > externalDataThreshold;
  ExternalData external(files.data, files.dataFileName);

  // The graph.
  Writer graph;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (keep[i])
      graph.copy(*nodes[i].field);
  for (const Field *field : otherFields)
    if (field->number == graph_field::kName)
      graph.copy(*field);
  for (const TensorInfo &init : initializers) {
    if (!needed.count(init.name))
      continue;
    if (!files.hasExternalData) {
      graph.copy(*init.field);
      continue;
    }
    // Move large raw_data to the .data file; keep everything else.
    Result<std::vector<Field>> tensorFields =
        protowire::parseMessage(init.field->data, init.field->size, "TensorProto");
    if (!tensorFields)
      return tensorFields.getStatus().withContext("the export template");
    const Field *rawData = nullptr;
    bool isExternal = false;
    for (const Field &item : *tensorFields) {
      if (item.number == tensor_field::kRawData && item.type == WireType::Bytes)
        rawData = &item;
      if (item.number == tensor_field::kDataLocation && item.value == tensor_field::kExternal)
        isExternal = true;
    }
    if (!rawData || isExternal || rawData->size < kExportExternalDataMinBytes) {
      graph.copy(*init.field);
      continue;
    }
    Writer tensor;
    for (const Field &item : *tensorFields)
      if (item.number != tensor_field::kRawData &&
          item.number != tensor_field::kExternalData &&
          item.number != tensor_field::kDataLocation)
        tensor.copy(item);
    external.add(tensor, rawData->data, rawData->size);
    graph.message(graph_field::kInitializer, std::move(tensor));
  }
  for (const ParameterInitializer &p : parameterInitializers) {
    const Tensor &data = p.param->data;
    Writer tensor;
    for (int64_t dim : data.shape())
      tensor.varint(tensor_field::kDims, static_cast<uint64_t>(dim));
    tensor.varint(tensor_field::kDataType, static_cast<uint64_t>(data.dtype()));
    tensor.bytes(tensor_field::kName, p.name);
    if (files.hasExternalData && data.byteSize() >= kExportExternalDataMinBytes)
      external.add(tensor, data.data(), data.byteSize());
    else
      tensor.borrowedBytes(tensor_field::kRawData, data.data(), data.byteSize());
    graph.message(graph_field::kInitializer, std::move(tensor));
  }
  for (const TensorInfo &init : sparseInitializers)
    if (needed.count(init.name))
      graph.copy(*init.field);
  for (const Field *field : otherFields)
    if (field->number == graph_field::kDocString)
      graph.copy(*field);
  std::unordered_set<std::string_view> inputNames;
  for (const TensorInfo &input : inputs) {
    inputNames.insert(input.name);
    if (!parameterInputs.count(input.name) && needed.count(input.name))
      graph.copy(*input.field);
  }
  for (const std::string &name : outputNames) {
    // The declared type: a graph output, a value_info entry, an input.
    const Field *info = nullptr;
    for (const auto *list : {&outputs, &valueInfos, &inputs}) {
      for (const TensorInfo &entry : *list)
        if (entry.name == name) {
          info = entry.field;
          break;
        }
      if (info)
        break;
    }
    if (info) {
      // The same ValueInfoProto, filed as an output.
      graph.bytes(graph_field::kOutput, info->bytes());
      continue;
    }
    auto init = std::find_if(initializers.begin(), initializers.end(),
                             [&](const TensorInfo &t) { return t.name == name; });
    if (init != initializers.end()) {
      Result<Writer> synthesized = valueInfoOfTensor(*init->field, init->name);
      if (!synthesized)
        return synthesized.getStatus().withContext("the export template");
      graph.message(graph_field::kOutput, synthesized.take());
      continue;
    }
    Writer bare; // no type known: the name alone
    bare.bytes(value_info_field::kName, name);
    graph.message(graph_field::kOutput, std::move(bare));
  }
  std::unordered_set<std::string_view> described;
  for (const TensorInfo &info : valueInfos)
    if (produced.count(info.name) && !requested.count(info.name) &&
        described.insert(info.name).second)
      graph.copy(*info.field);
  for (const Field *field : otherFields)
    if (field->number != graph_field::kName && field->number != graph_field::kDocString)
      graph.copy(*field);

  // The model: every field as it was, the graph replaced.
  for (const Field &field : *modelFields) {
    if (field.number == model_field::kGraph)
      files.model.message(model_field::kGraph, std::move(graph));
    else
      files.model.copy(field);
  }
  if (files.model.size() > uint64_t(std::numeric_limits<int32_t>::max()))
    return Status::error(
        "the inference model would be " + std::to_string(files.model.size()) +
        " bytes, over protobuf's 2 GiB limit; export with a lower external "
        "data threshold");
  return files;
}

Status exportInferenceModel(const CompiledModel &model,
                            const std::vector<std::shared_ptr<Parameter>> &parameters,
                            const std::string &path,
                            const std::vector<std::string> &outputNames,
                            uint64_t externalDataThreshold) {
  const std::vector<uint8_t> &exportTemplate = model.evalModelTemplate();
  if (exportTemplate.empty())
    return Status::error("the compiled model '" + model.origin() +
                         "' has no eval graph to export (compile it with an "
                         "eval model, with an odt-compile that embeds it)");
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  Result<InferenceModelFiles> files = buildInferenceModel(
      exportTemplate.data(), exportTemplate.size(), model.evalModelParameters(),
      parameters, outputNames, base + ".data", externalDataThreshold);
  if (!files)
    return files.getStatus().withContext("exporting '" + path + "'");

  // Both files complete before either replaces anything.
  AtomicFileWriter dataWriter, modelWriter;
  if (files->hasExternalData) {
    ODT_RETURN_IF_ERROR(dataWriter.open(path + ".data", "external data"));
    for (const ByteSpan &piece : files->data.pieces())
      ODT_RETURN_IF_ERROR(dataWriter.write(piece.data, piece.size));
    ODT_RETURN_IF_ERROR(dataWriter.finish());
  }
  ODT_RETURN_IF_ERROR(modelWriter.open(path, "inference model"));
  for (const ByteSpan &piece : files->model.pieces())
    ODT_RETURN_IF_ERROR(modelWriter.write(piece.data, piece.size));
  ODT_RETURN_IF_ERROR(modelWriter.finish());
  if (files->hasExternalData)
    ODT_RETURN_IF_ERROR(dataWriter.commit());
  return modelWriter.commit();
}

} // namespace odt
