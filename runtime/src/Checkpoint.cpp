// Reading and writing ONNX Runtime's training checkpoints (ODTC v2 flatbuffers,
// docs/ORT-FACTS.md §4).
//
// Loading never trusts the file: the flatbuffers Verifier (with the "ODTC"
// identifier) runs before any field is read, then every tensor is checked
// (name, type, dims, byte count, external data bounds). Total tensor bytes are
// bounded by the sizes of the files, so a hostile file cannot make the loader
// allocate more than it holds.

#include "Checkpoint.h"

#include "FileUtil.h"
#include "checkpoint_generated.h"
#include "FlatbuffersRead.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <set>
#include <utility>

namespace odt {

namespace fbs = onnxruntime::fbs;

std::shared_ptr<Parameter> CheckpointState::findParameter(const std::string &name) const {
  for (const std::shared_ptr<Parameter> &parameter : parameters)
    if (parameter && parameter->name == name)
      return parameter;
  return nullptr;
}

OptimizerGroupState *CheckpointState::findOptimizerGroup(const std::string &name) {
  for (OptimizerGroupState &group : optimizerGroups)
    if (group.name == name)
      return &group;
  return nullptr;
}

namespace {

constexpr int32_t kCheckpointVersion = 2;
constexpr const char *kIdentifier = "ODTC";
/// Tensors smaller than this stay inline even when external data is used.
constexpr uint64_t kMinExternalTensorBytes = 64;
/// Largest buffer the flatbuffers library handles (2 GiB - 1).
constexpr uint64_t kMaxFlatbufferSize = FLATBUFFERS_MAX_BUFFER_SIZE;
/// Past this many inline bytes the flatbuffer would come too close to its
/// 2 GiB limit: external data is then used whatever the threshold.
constexpr uint64_t kMaxInlineTensorBytes = uint64_t(1900) * 1024 * 1024;

std::string quote(const std::string &text) { return "'" + text + "'"; }

std::string dataTypeCodeName(int32_t code) {
  if (code >= 0 && code <= static_cast<int32_t>(fbs::TensorDataType::MAX))
    return fbs::EnumNameTensorDataType(static_cast<fbs::TensorDataType>(code));
  return "dtype(" + std::to_string(code) + ")";
}

// ---------------------------------------------------------------------------
// Truncation probe
// ---------------------------------------------------------------------------

/// After verification fails, tells a truncated file from a corrupt one: walks
/// the checkpoint's tables the way the verifier does, but only records whether
/// something they refer to lies past the end of the buffer. All reads are
/// bounds-checked; the walk is capped so hostile files cannot make it slow.
class TruncationProbe {
public:
  TruncationProbe(const uint8_t *buffer, size_t size) : buf(buffer), size(size) {}

  /// Whether the checkpoint refers to bytes past the end of the buffer.
  bool run() {
    if (!need(0, 8))
      return pastEnd;
    uint64_t root = u32(0);
    Table checkpoint = table(root);
    if (!checkpoint.ok)
      return pastEnd;
    uint64_t at;
    if (ref(checkpoint, 1, at)) { // module_state
      Table moduleState = table(at);
      if (moduleState.ok) {
        if (ref(moduleState, 0, at))
          tableVector(at, [this](uint64_t t) { tensor(t); });
        if (ref(moduleState, 1, at))
          tableVector(at, [this](uint64_t t) { tensor(t); });
      }
    }
    if (ref(checkpoint, 2, at)) // optimizer_groups
      tableVector(at, [this](uint64_t groupAt) {
        Table group = table(groupAt);
        uint64_t field;
        if (!group.ok)
          return;
        if (ref(group, 0, field))
          string(field);
        if (ref(group, 3, field))
          tableVector(field, [this](uint64_t stateAt) {
            Table state = table(stateAt);
            uint64_t inner;
            if (!state.ok)
              return;
            if (ref(state, 0, inner))
              string(inner);
            if (ref(state, 1, inner))
              tableVector(inner, [this](uint64_t t) { tensor(t); });
          });
      });
    if (ref(checkpoint, 3, at)) { // property_bag
      Table bag = table(at);
      for (int kind = 0; bag.ok && kind < 3; ++kind) {
        uint64_t list;
        if (ref(bag, kind, list))
          tableVector(list, [this, kind](uint64_t propertyAt) {
            Table property = table(propertyAt);
            uint64_t field;
            if (property.ok && ref(property, 0, field))
              string(field);
            if (property.ok && kind == 2 && ref(property, 1, field))
              string(field);
          });
      }
    }
    return pastEnd;
  }

  uint64_t furthestByte() const { return furthest; }

private:
  struct Table {
    bool ok = false;
    uint64_t pos = 0;
    uint64_t vtable = 0;
    uint16_t vsize = 0;
  };

  bool need(uint64_t pos, uint64_t length) {
    if (pos > std::numeric_limits<uint64_t>::max() - length) {
      pastEnd = true;
      return false;
    }
    uint64_t end = pos + length;
    furthest = std::max(furthest, end);
    if (end > size) {
      pastEnd = true;
      return false;
    }
    return true;
  }
  bool budgetLeft() { return !pastEnd && ++steps < 10'000'000; }
  uint32_t u32(uint64_t pos) const {
    uint32_t value;
    std::memcpy(&value, buf + pos, 4);
    return value;
  }
  uint16_t u16(uint64_t pos) const {
    uint16_t value;
    std::memcpy(&value, buf + pos, 2);
    return value;
  }

  Table table(uint64_t pos) {
    Table t;
    if (!budgetLeft() || !need(pos, 4))
      return t;
    int64_t vtable = int64_t(pos) - int64_t(int32_t(u32(pos)));
    if (vtable < 0 || !need(uint64_t(vtable), 4))
      return t;
    t.vtable = uint64_t(vtable);
    t.vsize = u16(t.vtable);
    uint16_t tsize = u16(t.vtable + 2);
    if (!need(t.vtable, t.vsize) || !need(pos, tsize))
      return t;
    t.pos = pos;
    t.ok = true;
    return t;
  }
  /// Follows the offset field `id` of `t`; false if absent or out of range.
  bool ref(const Table &t, int id, uint64_t &target) {
    uint64_t slot = 4 + 2 * uint64_t(id);
    if (slot + 2 > t.vsize)
      return false;
    uint16_t fieldOffset = u16(t.vtable + slot);
    if (fieldOffset == 0)
      return false;
    uint64_t at = t.pos + fieldOffset;
    if (!need(at, 4))
      return false;
    target = at + u32(at);
    return true;
  }
  bool vector(uint64_t pos, uint64_t elementSize, uint32_t &count) {
    if (!budgetLeft() || !need(pos, 4))
      return false;
    count = u32(pos);
    return need(pos + 4, uint64_t(count) * elementSize);
  }
  void string(uint64_t pos) {
    uint32_t count;
    if (vector(pos, 1, count))
      need(pos + 4 + count, 1); // the terminating zero
  }
  template <typename Visit> void tableVector(uint64_t pos, Visit visit) {
    uint32_t count;
    if (!vector(pos, 4, count))
      return;
    for (uint32_t i = 0; i < count && budgetLeft(); ++i) {
      uint64_t element = pos + 4 + 4 * uint64_t(i);
      visit(element + u32(element));
    }
  }
  void tensor(uint64_t pos) {
    Table t = table(pos);
    uint64_t at;
    uint32_t count;
    if (!t.ok)
      return;
    if (ref(t, 0, at))
      string(at);
    if (ref(t, 1, at))
      string(at);
    if (ref(t, 2, at))
      vector(at, 8, count);
    if (ref(t, 4, at))
      vector(at, 1, count);
    if (ref(t, 5, at) && vector(at, 4, count))
      for (uint32_t i = 0; i < count && budgetLeft(); ++i) {
        uint64_t element = at + 4 + 4 * uint64_t(i);
        string(element + u32(element));
      }
  }

  const uint8_t *buf;
  uint64_t size;
  uint64_t furthest = 0;
  uint64_t steps = 0;
  bool pastEnd = false;
};

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

class Loader {
public:
  Loader(std::string label, std::string noun, std::string externalDataPath)
      : label(std::move(label)), noun(std::move(noun)),
        externalPath(std::move(externalDataPath)) {}

  Result<CheckpointState> load(const uint8_t *data, size_t size) {
    if (size == 0)
      return fault(noun + " is empty");
    if (size < 8)
      return fault(noun + " is truncated (" + std::to_string(size) +
                   " bytes, too short for a checkpoint)");
    if (uint64_t(size) >= kMaxFlatbufferSize)
      return fault("too large for a flatbuffer (" + std::to_string(size) + " bytes)");
    bufferSize = size;

    flatbuffers::Verifier verifier(data, size);
    if (!fbs::VerifyCheckpointBuffer(verifier))
      return verificationFailure(data, size);
    const fbs::Checkpoint *checkpoint = fbs::GetCheckpoint(data);
    if (checkpoint->version() != kCheckpointVersion)
      return fault("unsupported checkpoint version " + std::to_string(checkpoint->version()) +
                   " (odt reads version " + std::to_string(kCheckpointVersion) + ")");

    CheckpointState state;
    ODT_RETURN_IF_ERROR(loadModuleState(checkpoint->module_state(), state));
    ODT_RETURN_IF_ERROR(loadOptimizerGroups(checkpoint->optimizer_groups(), state));
    ODT_RETURN_IF_ERROR(loadProperties(checkpoint->property_bag(), state));
    return state;
  }

private:
  Status fault(const std::string &text) const { return Status::error(label + ": " + text); }

  Status verificationFailure(const uint8_t *data, size_t size) const {
    if (std::memcmp(data + 4, kIdentifier, 4) != 0) {
      std::string found;
      for (int i = 4; i < 8; ++i) {
        char c = char(data[i]);
        if (c >= 0x20 && c < 0x7f) {
          found += c;
        } else {
          static const char digits[] = "0123456789abcdef";
          found += "\\x";
          found += digits[data[i] >> 4];
          found += digits[data[i] & 15];
        }
      }
      return fault("not an ODTC v2 checkpoint (file identifier is '" + found +
                   "', expected 'ODTC')");
    }
    TruncationProbe probe(data, size);
    if (probe.run())
      return fault(noun + " is truncated (" + std::to_string(size) +
                   " bytes, but it refers to data up to byte " +
                   std::to_string(probe.furthestByte()) + ")");
    return fault("not an ODTC v2 checkpoint (flatbuffers verification failed)");
  }

  Status loadModuleState(const fbs::ModuleState *moduleState, CheckpointState &state) {
    if (!moduleState)
      return fault("checkpoint has no module state");
    state.isNominal = moduleState->is_nominal_state();
    hasExternalData = moduleState->has_external_data();
    std::set<std::string> names;
    ODT_RETURN_IF_ERROR(
        loadParameters(moduleState->requires_grad_params(), true, "requires_grad_params", names, state));
    ODT_RETURN_IF_ERROR(
        loadParameters(moduleState->frozen_params(), false, "frozen_params", names, state));
    return Status::ok();
  }

  Status loadParameters(const flatbuffers::Vector<flatbuffers::Offset<fbs::Tensor>> *tensors,
                        bool requiresGrad, const char *listName, std::set<std::string> &names,
                        CheckpointState &state) {
    if (!tensors)
      return Status::ok();
    for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
      const fbs::Tensor *tensor = tensors->Get(i);
      if (!tensor->name() || tensor->name()->size() == 0)
        return fault("tensor #" + std::to_string(i) + " of " + listName + " has no name");
      std::string name = tensor->name()->str();
      if (!names.insert(name).second)
        return fault("parameter " + quote(name) + " appears more than once");
      auto parameter = std::make_shared<Parameter>();
      parameter->name = name;
      parameter->requiresGrad = requiresGrad;
      std::string what = "tensor " + quote(name);
      if (state.isNominal) {
        int32_t code = static_cast<int32_t>(tensor->data_type());
        if (!isKnownFixedSizeType(code))
          return fault(what + " has unsupported data type " + dataTypeCodeName(code));
        if ((tensor->raw_data() && tensor->raw_data()->size() != 0) ||
            tensor->external_data_offset() >= 0)
          return fault("state is nominal, but " + what + " carries data");
        parameter->dtype = static_cast<DataType>(code);
      } else {
        Result<Tensor> data = readTensor(*tensor, what);
        if (!data)
          return data.getStatus();
        parameter->dtype = data->dtype();
        parameter->data = data.take();
      }
      state.parameters.push_back(std::move(parameter));
    }
    return Status::ok();
  }

  Status loadOptimizerGroups(
      const flatbuffers::Vector<flatbuffers::Offset<fbs::OptimizerGroup>> *groups,
      CheckpointState &state) {
    if (!groups)
      return Status::ok();
    std::set<std::string> groupNames;
    for (flatbuffers::uoffset_t g = 0; g < groups->size(); ++g) {
      const fbs::OptimizerGroup *group = groups->Get(g);
      if (!group->group_name() || group->group_name()->size() == 0)
        return fault("optimizer group #" + std::to_string(g) + " has no name");
      OptimizerGroupState groupState;
      groupState.name = group->group_name()->str();
      if (!groupNames.insert(groupState.name).second)
        return fault("optimizer group " + quote(groupState.name) + " appears more than once");
      groupState.step = group->step();
      groupState.initialLearningRate = group->initial_learning_rate();
      std::string groupWhat = "optimizer group " + quote(groupState.name);
      if (const auto *states = group->optimizer_states()) {
        for (flatbuffers::uoffset_t s = 0; s < states->size(); ++s) {
          const fbs::ParameterOptimizerState *paramState = states->Get(s);
          if (!paramState->param_name() || paramState->param_name()->size() == 0)
            return fault("optimizer state #" + std::to_string(s) + " of " + groupWhat +
                         " has no parameter name");
          std::string paramName = paramState->param_name()->str();
          if (groupState.parameterStates.count(paramName))
            return fault(groupWhat + " holds the state of parameter " + quote(paramName) +
                         " more than once");
          ParameterOptimizerState &target = groupState.parameterStates[paramName];
          const auto *momentums = paramState->momentums();
          for (flatbuffers::uoffset_t m = 0; momentums && m < momentums->size(); ++m) {
            const fbs::Tensor *tensor = momentums->Get(m);
            std::string where = " of parameter " + quote(paramName) + " in " + groupWhat;
            if (!tensor->name() || tensor->name()->size() == 0)
              return fault("momentum #" + std::to_string(m) + where + " has no name");
            std::string name = tensor->name()->str();
            if (target.momentums.count(name))
              return fault("momentum " + quote(name) + where + " appears more than once");
            Result<Tensor> data = readTensor(*tensor, "momentum " + quote(name) + where);
            if (!data)
              return data.getStatus();
            target.momentums.emplace(name, data.take());
          }
        }
      }
      state.optimizerGroups.push_back(std::move(groupState));
    }
    return Status::ok();
  }

  Status loadProperties(const fbs::PropertyBag *bag, CheckpointState &state) {
    if (!bag)
      return Status::ok();
    auto add = [&](const flatbuffers::String *name, const char *kind, flatbuffers::uoffset_t i,
                   PropertyValue value) -> Status {
      if (!name || name->size() == 0)
        return fault(std::string(kind) + " property #" + std::to_string(i) + " has no name");
      if (!state.properties.emplace(name->str(), std::move(value)).second)
        return fault("property " + quote(name->str()) + " appears more than once");
      return Status::ok();
    };
    if (const auto *ints = bag->ints())
      for (flatbuffers::uoffset_t i = 0; i < ints->size(); ++i)
        ODT_RETURN_IF_ERROR(add(ints->Get(i)->name(), "int", i, PropertyValue(ints->Get(i)->value())));
    if (const auto *floats = bag->floats())
      for (flatbuffers::uoffset_t i = 0; i < floats->size(); ++i)
        ODT_RETURN_IF_ERROR(
            add(floats->Get(i)->name(), "float", i, PropertyValue(floats->Get(i)->value())));
    if (const auto *strings = bag->strings())
      for (flatbuffers::uoffset_t i = 0; i < strings->size(); ++i) {
        const flatbuffers::String *value = strings->Get(i)->value();
        ODT_RETURN_IF_ERROR(add(strings->Get(i)->name(), "string", i,
                                PropertyValue(value ? value->str() : std::string())));
      }
    return Status::ok();
  }

  /// A tensor's data, inline or external, checked against dims and dtype.
  Result<Tensor> readTensor(const fbs::Tensor &tensor, const std::string &what) {
    int32_t code = static_cast<int32_t>(tensor.data_type());
    if (!isKnownFixedSizeType(code))
      return fault(what + " has unsupported data type " + dataTypeCodeName(code));
    DataType type = static_cast<DataType>(code);
    Shape dims = readInt64Vector(tensor.dims());
    for (int64_t dim : dims)
      if (dim < 0)
        return fault(what + " has a negative dimension in " + formatShape(dims));
    int64_t count = numElements(dims);
    uint64_t elementSize = dataTypeSize(type);
    if (count < 0 || count > std::numeric_limits<int64_t>::max() / int64_t(elementSize))
      return fault(what + " has dims " + formatShape(dims) + " too large to address");
    uint64_t bytes = uint64_t(count) * elementSize;
    const auto *raw = tensor.raw_data();
    uint64_t rawSize = raw ? raw->size() : 0;

    int64_t offset = tensor.external_data_offset();
    if (offset < -1)
      return fault(what + " has an invalid external data offset " + std::to_string(offset));
    if (offset >= 0) {
      if (!hasExternalData)
        return fault(what + " has an external data offset, but the checkpoint does not "
                            "declare external data");
      if (rawSize != 0)
        return fault(what + " has both raw data and an external data offset");
      ODT_RETURN_IF_ERROR(openExternalData());
      uint64_t fileSize = externalFile.size();
      if (uint64_t(offset) > fileSize || bytes > fileSize - uint64_t(offset))
        return fault("external data file " + quote(externalPath) + " is truncated: " + what +
                     " needs " + std::to_string(bytes) + " bytes at offset " +
                     std::to_string(offset) + ", the file holds " + std::to_string(fileSize) +
                     " bytes");
      externalBytes += bytes;
      if (externalBytes > fileSize)
        return fault(what + ": tensors claim more external data (" +
                     std::to_string(externalBytes) + " bytes) than " + quote(externalPath) +
                     " holds (" + std::to_string(fileSize) + ")");
      Tensor result = Tensor::zeros(type, dims);
      Status read = externalFile.readAt(uint64_t(offset), result.data(), size_t(bytes));
      if (!read.isOk())
        return read.withContext(label);
      return result;
    }

    if (rawSize != bytes)
      return fault(what + " holds " + std::to_string(rawSize) + " bytes, dims " +
                   formatShape(dims) + " of " + dataTypeName(type) + " need " +
                   std::to_string(bytes));
    inlineBytes += bytes;
    if (inlineBytes > bufferSize) // vectors shared between tensors
      return fault(what + ": tensors claim more data (" + std::to_string(inlineBytes) +
                   " bytes) than the file holds");
    return Tensor::copyOf(type, dims, raw ? raw->data() : nullptr);
  }

  Status openExternalData() {
    if (externalOpen)
      return Status::ok();
    if (externalPath.empty())
      return fault("the checkpoint has external data, but no external data file was given");
    Status opened = externalFile.open(externalPath, "external data file");
    if (!opened.isOk())
      return opened.withContext(label);
    externalOpen = true;
    return Status::ok();
  }

  std::string label;
  std::string noun; // "file" or "buffer"
  std::string externalPath;
  ReadOnlyFile externalFile;
  bool externalOpen = false;
  bool hasExternalData = false;
  uint64_t bufferSize = 0;
  uint64_t inlineBytes = 0;
  uint64_t externalBytes = 0;
};

Result<CheckpointState> loadGuarded(const std::string &label, const std::string &noun,
                                    const uint8_t *data, size_t size,
                                    const std::string &externalDataPath) {
  try {
    Loader loader(label, noun, externalDataPath);
    // The verifier and the generated accessors expect scalars at aligned
    // addresses; copy a misaligned caller buffer once.
    if (reinterpret_cast<uintptr_t>(data) % 8 != 0 && size > 0) {
      std::vector<uint64_t> aligned((size + 7) / 8);
      std::memcpy(aligned.data(), data, size);
      return loader.load(reinterpret_cast<const uint8_t *>(aligned.data()), size);
    }
    return loader.load(data, size);
  } catch (const std::bad_alloc &) {
    return Status::error(label + ": out of memory");
  } catch (const std::exception &error) {
    return Status::error(label + ": " + error.what());
  }
}

// ---------------------------------------------------------------------------
// Saving
// ---------------------------------------------------------------------------

/// The generated Create* functions add fields largest first; ORT adds them in
/// declaration order. These do the same, so that the tables are laid out as in
/// ORT's files (same bytes for the same content).
flatbuffers::Offset<fbs::Tensor>
makeTensor(flatbuffers::FlatBufferBuilder &builder, flatbuffers::Offset<flatbuffers::String> name,
           flatbuffers::Offset<flatbuffers::Vector<int64_t>> dims, fbs::TensorDataType type,
           flatbuffers::Offset<flatbuffers::Vector<uint8_t>> raw, int64_t externalOffset = -1) {
  fbs::TensorBuilder table(builder);
  table.add_name(name);
  table.add_dims(dims);
  table.add_data_type(type);
  table.add_raw_data(raw);
  table.add_external_data_offset(externalOffset);
  return table.Finish();
}

/// A tensor's bytes placed in the external data file.
struct ExternalPiece {
  uint64_t offset;
  const void *data;
  uint64_t size;
};

class Saver {
public:
  Saver(const CheckpointState &state, const std::string &path, bool includeOptimizerState,
        uint64_t threshold)
      : state(state), path(path), label("checkpoint " + quote(path)),
        includeOptimizer(includeOptimizerState), threshold(threshold) {}

  Status save() {
    ODT_RETURN_IF_ERROR(collect());
    useExternal = !state.isNominal &&
                  (totalTensorBytes > threshold || totalTensorBytes > kMaxInlineTensorBytes);
    uint64_t estimate = estimatedBufferSize();
    if (estimate >= kMaxFlatbufferSize)
      return fault("would be about " + std::to_string(estimate) +
                   " bytes, past the flatbuffers limit of 2 GiB");

    flatbuffers::FlatBufferBuilder builder(size_t(std::min<uint64_t>(estimate, 1 << 20)));
    finishBuffer(builder);

    AtomicFileWriter dataWriter;
    if (useExternal) {
      ODT_RETURN_IF_ERROR(dataWriter.open(path + ".data", "checkpoint data file"));
      uint64_t written = 0;
      for (const ExternalPiece &piece : externalPieces) {
        ODT_RETURN_IF_ERROR(dataWriter.writeZeros(size_t(piece.offset - written)));
        ODT_RETURN_IF_ERROR(dataWriter.write(piece.data, size_t(piece.size)));
        written = piece.offset + piece.size;
      }
      ODT_RETURN_IF_ERROR(dataWriter.finish());
    }
    AtomicFileWriter writer;
    ODT_RETURN_IF_ERROR(writer.open(path, "checkpoint"));
    ODT_RETURN_IF_ERROR(writer.write(builder.GetBufferPointer(), builder.GetSize()));
    ODT_RETURN_IF_ERROR(writer.finish());
    // Both files are complete on disk; only now replace the old ones. A
    // failure of the second rename (rare: same folder, same file system)
    // would leave the new .data file beside the old checkpoint.
    if (useExternal)
      ODT_RETURN_IF_ERROR(dataWriter.commit());
    return writer.commit();
  }

private:
  Status fault(const std::string &text) const {
    return Status::error("cannot save " + label + ": " + text);
  }

  Status checkTensor(const Tensor &tensor, const std::string &what) {
    if (tensor.empty())
      return fault(what + " has no data");
    if (!isKnownFixedSizeType(static_cast<int32_t>(tensor.dtype())))
      return fault(what + " has unsupported data type " + dataTypeName(tensor.dtype()));
    if (tensor.size() < 0)
      return fault(what + " has invalid dims " + formatShape(tensor.shape()));
    if (tensor.byteSize() != 0 && tensor.data() == nullptr)
      return fault(what + " has no buffer");
    totalTensorBytes += tensor.byteSize();
    return Status::ok();
  }

  /// Validates the state and orders what is written.
  Status collect() {
    std::set<std::string> names;
    for (const std::shared_ptr<Parameter> &parameter : state.parameters) {
      if (!parameter)
        return fault("a parameter entry is null");
      if (parameter->name.empty())
        return fault("a parameter has no name");
      if (!names.insert(parameter->name).second)
        return fault("parameter " + quote(parameter->name) + " appears more than once");
      std::string what = "parameter " + quote(parameter->name);
      if (state.isNominal) {
        if (!isKnownFixedSizeType(static_cast<int32_t>(parameter->dtype)))
          return fault(what + " has unsupported data type " + dataTypeName(parameter->dtype));
      } else {
        ODT_RETURN_IF_ERROR(checkTensor(parameter->data, what));
        if (parameter->data.dtype() != parameter->dtype)
          return fault(what + " is declared " + dataTypeName(parameter->dtype) +
                       " but holds " + dataTypeName(parameter->data.dtype()));
      }
      (parameter->requiresGrad ? trainable : frozen).push_back(parameter.get());
    }
    auto byName = [](const Parameter *a, const Parameter *b) { return a->name < b->name; };
    std::sort(trainable.begin(), trainable.end(), byName);
    std::sort(frozen.begin(), frozen.end(), byName);

    if (includeOptimizer) {
      std::set<std::string> groupNames;
      for (const OptimizerGroupState &group : state.optimizerGroups) {
        if (group.name.empty())
          return fault("an optimizer group has no name");
        if (!groupNames.insert(group.name).second)
          return fault("optimizer group " + quote(group.name) + " appears more than once");
        for (const auto &[paramName, paramState] : group.parameterStates) {
          if (paramName.empty())
            return fault("optimizer group " + quote(group.name) +
                         " holds a state without a parameter name");
          for (const auto &[momentumName, momentum] : paramState.momentums) {
            std::string what = "momentum " + quote(momentumName) + " of parameter " +
                               quote(paramName) + " in optimizer group " + quote(group.name);
            if (momentumName.empty())
              return fault("a momentum of parameter " + quote(paramName) +
                           " in optimizer group " + quote(group.name) + " has no name");
            ODT_RETURN_IF_ERROR(checkTensor(momentum, what));
          }
        }
      }
    }
    return Status::ok();
  }

  uint64_t estimatedBufferSize() const {
    uint64_t estimate = 4096;
    auto tensorCost = [&](const std::string &name, const Tensor &tensor) {
      uint64_t cost = 96 + name.size() + 8 * tensor.shape().size();
      uint64_t bytes = tensor.byteSize();
      if (!useExternal || bytes < kMinExternalTensorBytes)
        cost += bytes;
      return cost;
    };
    for (const Parameter *parameter : trainable)
      estimate += tensorCost(parameter->name, parameter->data);
    for (const Parameter *parameter : frozen)
      estimate += tensorCost(parameter->name, parameter->data);
    if (includeOptimizer)
      for (const OptimizerGroupState &group : state.optimizerGroups) {
        estimate += 64 + group.name.size();
        for (const auto &[paramName, paramState] : group.parameterStates) {
          estimate += 64 + paramName.size();
          for (const auto &[momentumName, momentum] : paramState.momentums)
            estimate += tensorCost(momentumName, momentum);
        }
      }
    for (const auto &[name, value] : state.properties) {
      estimate += 64 + name.size();
      if (const auto *text = std::get_if<std::string>(&value))
        estimate += text->size();
    }
    return estimate;
  }

  flatbuffers::Offset<fbs::Tensor> addTensor(flatbuffers::FlatBufferBuilder &builder,
                                             const std::string &name, const Tensor &tensor) {
    auto nameOffset = builder.CreateString(name);
    auto dims = builder.CreateVector(tensor.shape().data(), tensor.shape().size());
    auto type = static_cast<fbs::TensorDataType>(tensor.dtype());
    uint64_t bytes = tensor.byteSize();
    if (useExternal && bytes >= kMinExternalTensorBytes) {
      DataType dtype = tensor.dtype();
      uint64_t alignment = dtype == DataType::Int64 || dtype == DataType::Double ? 8 : 4;
      uint64_t offset = (externalEnd + alignment - 1) / alignment * alignment;
      externalPieces.push_back({offset, tensor.data(), bytes});
      externalEnd = offset + bytes;
      return makeTensor(builder, nameOffset, dims, type, 0, int64_t(offset));
    }
    auto raw = builder.CreateVector(static_cast<const uint8_t *>(tensor.data()), size_t(bytes));
    return makeTensor(builder, nameOffset, dims, type, raw);
  }

  void finishBuffer(flatbuffers::FlatBufferBuilder &builder) {
    auto tensorOffsets = [&](const std::vector<const Parameter *> &parameters) {
      std::vector<flatbuffers::Offset<fbs::Tensor>> offsets;
      for (const Parameter *parameter : parameters) {
        if (state.isNominal) {
          // As ORT writes them: name, type, and empty dims and data.
          auto name = builder.CreateString(parameter->name);
          static const int64_t noDims[1] = {};
          static const uint8_t noData[1] = {};
          auto dims = builder.CreateVector(noDims, 0);
          auto raw = builder.CreateVector(noData, 0);
          offsets.push_back(makeTensor(builder, name, dims,
                                       static_cast<fbs::TensorDataType>(parameter->dtype), raw));
        } else {
          offsets.push_back(addTensor(builder, parameter->name, parameter->data));
        }
      }
      return offsets;
    };
    // ORT's order: all tensors, then the two lists.
    auto trainableOffsets = tensorOffsets(trainable);
    auto frozenOffsets = tensorOffsets(frozen);
    auto trainableList = builder.CreateVector(trainableOffsets);
    auto frozenList = builder.CreateVector(frozenOffsets);
    fbs::ModuleStateBuilder moduleTable(builder);
    moduleTable.add_requires_grad_params(trainableList);
    moduleTable.add_frozen_params(frozenList);
    moduleTable.add_is_nominal_state(state.isNominal);
    moduleTable.add_has_external_data(useExternal);
    auto moduleState = moduleTable.Finish();

    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::OptimizerGroup>>> groups;
    if (!state.isNominal || (includeOptimizer && !state.optimizerGroups.empty())) {
      std::vector<flatbuffers::Offset<fbs::OptimizerGroup>> groupOffsets;
      if (includeOptimizer)
        for (const OptimizerGroupState &group : state.optimizerGroups) {
          std::vector<flatbuffers::Offset<fbs::ParameterOptimizerState>> states;
          // std::map: parameter names and momentum names come out sorted.
          for (const auto &[paramName, paramState] : group.parameterStates) {
            std::vector<flatbuffers::Offset<fbs::Tensor>> momentums;
            for (const auto &[momentumName, momentum] : paramState.momentums)
              momentums.push_back(addTensor(builder, momentumName, momentum));
            auto momentumList = builder.CreateVector(momentums);
            auto paramNameOffset = builder.CreateString(paramName);
            fbs::ParameterOptimizerStateBuilder stateTable(builder);
            stateTable.add_param_name(paramNameOffset);
            stateTable.add_momentums(momentumList);
            states.push_back(stateTable.Finish());
          }
          auto stateList = builder.CreateVector(states);
          auto groupName = builder.CreateString(group.name);
          fbs::OptimizerGroupBuilder groupTable(builder);
          groupTable.add_group_name(groupName);
          groupTable.add_step(group.step);
          groupTable.add_initial_learning_rate(group.initialLearningRate);
          groupTable.add_optimizer_states(stateList);
          groupOffsets.push_back(groupTable.Finish());
        }
      groups = builder.CreateVector(groupOffsets);
    }

    flatbuffers::Offset<fbs::PropertyBag> bag;
    if (!state.properties.empty()) {
      // std::map: each typed list comes out sorted by name.
      std::vector<flatbuffers::Offset<fbs::IntProperty>> ints;
      std::vector<flatbuffers::Offset<fbs::FloatProperty>> floats;
      std::vector<flatbuffers::Offset<fbs::StringProperty>> strings;
      for (const auto &[name, value] : state.properties) {
        auto nameOffset = builder.CreateString(name);
        if (const auto *integer = std::get_if<int64_t>(&value)) {
          ints.push_back(fbs::CreateIntProperty(builder, nameOffset, *integer));
        } else if (const auto *real = std::get_if<float>(&value)) {
          floats.push_back(fbs::CreateFloatProperty(builder, nameOffset, *real));
        } else {
          auto text = builder.CreateString(std::get<std::string>(value));
          strings.push_back(fbs::CreateStringProperty(builder, nameOffset, text));
        }
      }
      auto intList = builder.CreateVector(ints);
      auto floatList = builder.CreateVector(floats);
      auto stringList = builder.CreateVector(strings);
      bag = fbs::CreatePropertyBag(builder, intList, floatList, stringList);
    }

    fbs::CheckpointBuilder root(builder);
    root.add_version(kCheckpointVersion);
    root.add_module_state(moduleState);
    root.add_optimizer_groups(groups);
    root.add_property_bag(bag);
    fbs::FinishCheckpointBuffer(builder, root.Finish());
  }

  const CheckpointState &state;
  std::string path;
  std::string label;
  bool includeOptimizer;
  uint64_t threshold;
  bool useExternal = false;
  uint64_t totalTensorBytes = 0;
  std::vector<const Parameter *> trainable;
  std::vector<const Parameter *> frozen;
  std::vector<ExternalPiece> externalPieces;
  uint64_t externalEnd = 0;
};

} // namespace

Result<CheckpointState> loadCheckpoint(const std::string &path) {
  std::string label = "checkpoint " + quote(path);
  try {
    Result<std::vector<uint8_t>> bytes = readWholeFile(path, "checkpoint", kMaxFlatbufferSize - 1);
    if (!bytes)
      return bytes.getStatus();
    return loadGuarded(label, "file", bytes->data(), bytes->size(), path + ".data");
  } catch (const std::bad_alloc &) {
    return Status::error(label + ": out of memory");
  } catch (const std::exception &error) {
    return Status::error(label + ": " + error.what());
  }
}

Result<CheckpointState> loadCheckpointFromBuffer(const void *data, size_t size,
                                                 const std::string &externalDataPath) {
  if (!data && size != 0)
    return Status::error("checkpoint buffer: null data pointer");
  static const uint8_t empty[8] = {};
  return loadGuarded("checkpoint buffer", "buffer", data ? static_cast<const uint8_t *>(data) : empty,
                     size, externalDataPath);
}

Status saveCheckpoint(const CheckpointState &state, const std::string &path,
                      bool includeOptimizerState) {
  return saveCheckpoint(state, path, includeOptimizerState, kDefaultExternalDataThreshold);
}

Status saveCheckpoint(const CheckpointState &state, const std::string &path,
                      bool includeOptimizerState, uint64_t externalDataThreshold) {
  // Values a session keeps on a device are written as they are now.
  if (Status synced = state.synchronizeHost(); !synced)
    return synced.withContext("cannot save checkpoint " + quote(path));
  try {
    Saver saver(state, path, includeOptimizerState, externalDataThreshold);
    return saver.save();
  } catch (const std::bad_alloc &) {
    return Status::error("cannot save checkpoint " + quote(path) + ": out of memory");
  } catch (const std::exception &error) {
    return Status::error("cannot save checkpoint " + quote(path) + ": " + error.what());
  }
}

} // namespace odt
