//===- ModelExporter.cpp - onnx dialect functions to ONNX graphs ----------===//

#include "compiler/export/ModelExporter.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"
#include "dialects/onnx/ShapeInference.h"

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <fstream>

using namespace mlir;

namespace odt {

LogicalResult exportElements(Attribute value, StringRef name,
                             ::onnx::TensorProto &tensor) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return failure();
  auto type = cast<ShapedType>(dense.getType());
  int32_t dataType = getONNXDataType(type.getElementType());
  if (!dataType)
    return failure();
  tensor.set_name(name.str());
  tensor.set_data_type(dataType);
  for (int64_t dim : type.getShape())
    tensor.add_dims(dim);
  std::string &raw = *tensor.mutable_raw_data();
  int64_t count = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    // MLIR packs booleans as bits; ONNX stores one byte per element.
    raw.reserve(count);
    for (bool bit : dense.getValues<bool>())
      raw.push_back(bit ? 1 : 0);
    return success();
  }
  ArrayRef<char> bytes = dense.getRawData();
  if (dense.isSplat()) {
    raw.reserve(bytes.size() * count);
    for (int64_t i = 0; i < count; ++i)
      raw.append(bytes.data(), bytes.size());
  } else {
    raw.assign(bytes.data(), bytes.size());
  }
  return success();
}

namespace {

/// Sets `info`'s name and tensor type; dims from `dims` (onnx.dims: a size or
/// a symbol name each) where given, else from the static type.
LogicalResult fillValueInfo(::onnx::ValueInfoProto &info, StringRef name,
                            Type type, ArrayAttr dims, Location loc) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  int32_t dataType = ranked ? getONNXDataType(ranked.getElementType()) : 0;
  if (!dataType)
    return emitError(loc) << "graph input or output '" << name << "' has type "
                          << type << ", which ONNX cannot describe";
  info.set_name(name.str());
  auto *tensorType = info.mutable_type()->mutable_tensor_type();
  tensorType->set_elem_type(dataType);
  auto *shape = tensorType->mutable_shape();
  for (int64_t d = 0; d < ranked.getRank(); ++d) {
    auto *dim = shape->add_dim();
    Attribute named = dims && d < (int64_t)dims.size() ? dims[d] : Attribute();
    if (auto size = dyn_cast_or_null<IntegerAttr>(named))
      dim->set_dim_value(size.getInt());
    else if (auto symbol = dyn_cast_or_null<StringAttr>(named))
      dim->set_dim_param(symbol.str());
    else if (!ranked.isDynamicDim(d))
      dim->set_dim_value(ranked.getDimSize(d));
  }
  return success();
}

/// Writes attribute `value` as `attr`; fails for kinds ONNX has no type for.
LogicalResult exportAttribute(StringRef name, Attribute value,
                              ::onnx::AttributeProto &attr) {
  attr.set_name(name.str());
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    attr.set_type(::onnx::AttributeProto::INT);
    attr.set_i(integer.getValue().getSExtValue());
  } else if (auto real = dyn_cast<FloatAttr>(value)) {
    attr.set_type(::onnx::AttributeProto::FLOAT);
    attr.set_f(real.getValueAsDouble());
  } else if (auto string = dyn_cast<StringAttr>(value)) {
    attr.set_type(::onnx::AttributeProto::STRING);
    attr.set_s(string.str());
  } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(value)) {
    attr.set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : ints.asArrayRef())
      attr.add_ints(v);
  } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(value)) {
    attr.set_type(::onnx::AttributeProto::FLOATS);
    for (float v : floats.asArrayRef())
      attr.add_floats(v);
  } else if (auto array = dyn_cast<ArrayAttr>(value)) {
    // The importer makes string lists ArrayAttrs; integer lists written by
    // passes as ArrayAttrs of integers are accepted too.
    bool strings = llvm::all_of(array, llvm::IsaPred<StringAttr>);
    bool ints = llvm::all_of(array, llvm::IsaPred<IntegerAttr>);
    if (strings && !array.empty()) {
      attr.set_type(::onnx::AttributeProto::STRINGS);
      for (Attribute s : array)
        attr.add_strings(cast<StringAttr>(s).str());
    } else if (ints) {
      attr.set_type(::onnx::AttributeProto::INTS);
      for (Attribute i : array)
        attr.add_ints(cast<IntegerAttr>(i).getValue().getSExtValue());
    } else {
      return failure();
    }
  } else if (isa<DenseElementsAttr>(value)) {
    attr.set_type(::onnx::AttributeProto::TENSOR);
    return exportElements(value, "", *attr.mutable_t());
  } else {
    return failure();
  }
  return success();
}

class GraphExporter {
public:
  GraphExporter(func::FuncOp func, const GraphExportOptions &options,
                ::onnx::GraphProto &graph)
      : func(func), options(options), graph(graph) {}

  LogicalResult run() {
    graph.Clear();
    graph.set_name(func.getSymName().str());
    for (BlockArgument arg : func.getArguments()) {
      auto name =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kNameAttr);
      if (!name)
        return emitError(arg.getLoc())
               << "argument #" << arg.getArgNumber() << " has no " << kNameAttr
               << "; cannot name the graph input";
      if (failed(claim(arg, name.getValue(), arg.getLoc())))
        return failure();
      auto dims =
          func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), kDimsAttr);
      if (failed(fillValueInfo(*graph.add_input(), name.getValue(),
                               arg.getType(), dims, arg.getLoc())))
        return failure();
    }
    // Caller-given names are claimed up front, so fresh names avoid them.
    for (const auto &[value, name] : options.valueNames)
      if (!names.count(value))
        if (failed(claim(value, name, value.getLoc())))
          return failure();
    WalkResult named = func.walk([&](Operation *op) {
      auto resultNames = op->getAttrOfType<ArrayAttr>(kResultNamesAttr);
      if (!resultNames)
        return WalkResult::advance();
      for (auto [result, name] : llvm::zip(op->getResults(), resultNames))
        // A name taken already (an argument odt added, such as `labels`)
        // leaves the value a fresh one.
        if (auto string = dyn_cast<StringAttr>(name);
            string && !string.empty() && !names.count(result) &&
            !used.contains(string.getValue()))
          if (failed(claim(result, string.getValue(), op->getLoc())))
            return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (named.wasInterrupted())
      return failure();

    auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
    // Results name the values they return, unless the value already has a
    // name (an argument returned as is): then an Identity node renames it.
    SmallVector<std::pair<Value, std::string>> renamedOutputs;
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands())) {
      auto name = func.getResultAttrOfType<StringAttr>(index, kNameAttr);
      if (!name)
        return returnOp.emitError()
               << "result #" << index << " has no " << kNameAttr;
      auto named = names.find(result);
      if (named != names.end() && named->second == name.getValue())
        continue; // Already carries the output's name.
      if (named != names.end() || !isa<OpResult>(result))
        renamedOutputs.push_back({result, name.str()});
      else if (failed(claim(result, name.getValue(), result.getLoc())))
        return failure();
    }

    for (Operation &op : func.front().without_terminator())
      if (failed(exportOp(op)))
        return failure();
    if (options.shapes)
      writeValueInfos(returnOp);
    for (auto &[value, name] : renamedOutputs) {
      if (!used.insert(name).second)
        return returnOp.emitError()
               << "output name '" << name << "' is used twice";
      auto *node = graph.add_node();
      node->set_op_type("Identity");
      node->set_name(name + "_identity");
      node->add_input(nameOf(value));
      node->add_output(name);
    }
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands())) {
      auto name = func.getResultAttrOfType<StringAttr>(index, kNameAttr);
      auto dims = func.getResultAttrOfType<ArrayAttr>(index, kDimsAttr);
      if (failed(fillValueInfo(*graph.add_output(), name.getValue(),
                               result.getType(), dims, returnOp.getLoc())))
        return failure();
    }
    return success();
  }

private:
  LogicalResult claim(Value value, StringRef name, Location loc) {
    if (!used.insert(name).second)
      return emitError(loc)
             << "the name '" << name << "' is given to two values";
    names[value] = name.str();
    return success();
  }

  std::string fresh(StringRef hint) {
    std::string name;
    do
      name = (hint + "_" + llvm::Twine(counter++)).str();
    while (used.contains(name));
    used.insert(name);
    return name;
  }

  std::string nameOf(Value value) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    return names[value] = fresh("odt");
  }

  /// The node name: the op's NameLoc when it is still free, else a fresh one.
  std::string nodeName(Operation &op, StringRef opType) {
    if (auto loc = dyn_cast<NameLoc>(op.getLoc()))
      if (nodeNames.insert(loc.getName().getValue()).second)
        return loc.getName().str();
    std::string name;
    do
      name = (opType + "_" + llvm::Twine(nodeCounter++)).str();
    while (!nodeNames.insert(name).second);
    return name;
  }

  LogicalResult exportOp(Operation &op) {
    if (isa<onnx::NoValueOp>(op))
      return success();
    if (auto constant = dyn_cast<onnx::ConstantOp>(op)) {
      if (constant->use_empty())
        return success();
      // Initializers keep the name the importer located them at.
      if (auto loc = dyn_cast<NameLoc>(op.getLoc());
          loc && !names.count(constant.getResult()) &&
          !used.contains(loc.getName().getValue()))
        (void)claim(constant.getResult(), loc.getName().getValue(), loc);
      std::string name = nameOf(constant.getResult());
      if (failed(exportElements(constant.getValue(), name,
                                *graph.add_initializer())))
        return op.emitError() << "constant of type " << constant.getType()
                              << " cannot be written as an ONNX tensor";
      return success();
    }
    StringRef fullName = op.getName().getStringRef();
    if (!fullName.consume_front("onnx."))
      return op.emitError() << "only onnx dialect ops can be exported";
    auto *node = graph.add_node();
    if (fullName.consume_front("ms."))
      node->set_domain("com.microsoft");
    node->set_op_type(fullName.str());
    node->set_name(nodeName(op, fullName));
    for (Value operand : op.getOperands())
      node->add_input(isa<NoneType>(operand.getType()) ? std::string()
                                                       : nameOf(operand));
    // Absent trailing optional inputs are left out, as ONNX writers do.
    while (node->input_size() && node->input(node->input_size() - 1).empty())
      node->mutable_input()->RemoveLast();
    // Unused trailing results are left out, as ONNX allows for optional
    // outputs; an unused result before a used one gets a name.
    unsigned lastUsed = 0;
    for (OpResult result : op.getResults())
      if (!result.use_empty())
        lastUsed = result.getResultNumber() + 1;
    lastUsed = std::max(lastUsed, 1u);
    // A variadic output (Split's pieces) keeps every result: their number is
    // part of the meaning.
    if (auto iface = dyn_cast<onnx::ONNXOpInterface>(op);
        iface && iface.hasVariadicONNXOutputs())
      lastUsed = op.getNumResults();
    // ORT's BatchNormInternal in training mode requires all five outputs.
    if (isa<onnx::BatchNormInternalOp>(op))
      lastUsed = op.getNumResults();
    // ...and never fewer than the operator requires (TopK's Indices).
    if (node->domain().empty())
      if (const auto *schema =
              ::onnx::OpSchemaRegistry::Schema(node->op_type(), ""))
        lastUsed = std::max(lastUsed, (unsigned)schema->min_output());
    for (unsigned i = 0; i < lastUsed && i < op.getNumResults(); ++i)
      node->add_output(nameOf(op.getResult(i)));
    // MLIR stores every default-valued attribute on creation; ONNX leaves
    // defaults out, and older opsets reject attributes they do not know
    // (Shape's start and end before opset 15), so defaults are not written.
    DictionaryAttr defaults = defaultAttributes(op.getName());
    for (NamedAttribute attr : op.getAttrs()) {
      // odt's own annotations (result names) are not ONNX attributes.
      if (attr.getName().getValue().starts_with("odt."))
        continue;
      if (defaults.get(attr.getName()) == attr.getValue())
        continue;
      if (failed(exportAttribute(attr.getName().getValue(), attr.getValue(),
                                 *node->add_attribute())))
        return op.emitError() << "attribute '" << attr.getName().getValue()
                              << "' has no ONNX type: " << attr.getValue();
    }
    return success();
  }

  /// value_info for every named op result that is not a graph output.
  void writeValueInfos(func::ReturnOp returnOp) {
    llvm::DenseSet<Value> outputs(returnOp.operand_begin(),
                                  returnOp.operand_end());
    Builder builder(func.getContext());
    for (Operation &op : func.front().without_terminator()) {
      if (isa<onnx::ConstantOp, onnx::NoValueOp>(op))
        continue;
      for (Value result : op.getResults()) {
        auto it = names.find(result);
        if (it == names.end() || result.use_empty() ||
            outputs.contains(result) || !options.shapes->hasShape(result))
          continue;
        SmallVector<Attribute> dims;
        for (const onnx::Dim &dim : options.shapes->getShape(result))
          dims.push_back(
              dim.isStatic()
                  ? Attribute(builder.getI64IntegerAttr(dim.getSize()))
                  : Attribute(builder.getStringAttr(
                        options.shapes->symbolName(dim))));
        ::onnx::ValueInfoProto info;
        if (succeeded(fillValueInfo(info, it->second, result.getType(),
                                    builder.getArrayAttr(dims),
                                    result.getLoc())))
          *graph.add_value_info() = std::move(info);
      }
    }
  }

  /// The attributes an op of `name` has when created with none: its
  /// default-valued ones (held in properties, so read from a scratch op).
  DictionaryAttr defaultAttributes(OperationName name) {
    auto it = defaultsByOp.find(name);
    if (it != defaultsByOp.end())
      return it->second;
    OperationState state(UnknownLoc::get(name.getContext()), name);
    Operation *scratch = Operation::create(state);
    DictionaryAttr defaults = scratch->getAttrDictionary();
    scratch->destroy();
    return defaultsByOp[name] = defaults;
  }

  func::FuncOp func;
  const GraphExportOptions &options;
  llvm::DenseMap<OperationName, DictionaryAttr> defaultsByOp;
  ::onnx::GraphProto &graph;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> used, nodeNames;
  unsigned counter = 0, nodeCounter = 0;
};

} // namespace

LogicalResult exportFunction(func::FuncOp func,
                             const GraphExportOptions &options,
                             ::onnx::GraphProto &graph) {
  return GraphExporter(func, options, graph).run();
}

LogicalResult writeModel(const ::onnx::ModelProto &model, StringRef path,
                         std::string &error) {
  size_t size = model.ByteSizeLong();
  if (size > size_t(INT_MAX)) {
    error = "the model is " + std::to_string(size) +
            " bytes, over protobuf's 2 GiB limit; its initializers must go "
            "to external data";
    return failure();
  }
  std::string temp = (path + ".tmp").str();
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out || !model.SerializeToOstream(&out) || !out.flush()) {
      error = "cannot write '" + temp + "'";
      llvm::sys::fs::remove(temp);
      return failure();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  return success();
}

LogicalResult moveToExternalData(::onnx::ModelProto &model,
                                 StringRef dataFileName, StringRef dataPath,
                                 uint64_t threshold, std::string &error) {
  bool any = llvm::any_of(model.graph().initializer(), [&](const auto &t) {
    return t.has_raw_data() && t.raw_data().size() >= threshold;
  });
  if (!any)
    return success();
  std::ofstream out(dataPath.str(), std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write '" + dataPath.str() + "'";
    return failure();
  }
  uint64_t offset = 0;
  for (auto &tensor : *model.mutable_graph()->mutable_initializer()) {
    if (!tensor.has_raw_data() || tensor.raw_data().size() < threshold)
      continue;
    uint64_t aligned = (offset + 63) / 64 * 64;
    for (; offset < aligned; ++offset)
      out.put(0);
    const std::string &raw = tensor.raw_data();
    out.write(raw.data(), raw.size());
    auto add = [&](const char *key, const std::string &value) {
      auto *entry = tensor.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add("location", dataFileName.str());
    add("offset", std::to_string(offset));
    add("length", std::to_string(raw.size()));
    offset += raw.size();
    tensor.clear_raw_data();
    tensor.set_data_location(::onnx::TensorProto::EXTERNAL);
  }
  if (!out.flush()) {
    error = "cannot write '" + dataPath.str() + "'";
    return failure();
  }
  return success();
}

} // namespace odt
