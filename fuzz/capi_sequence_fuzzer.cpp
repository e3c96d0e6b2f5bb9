// libFuzzer: sequences of C API calls (runtime/include/odt/odt.h) over a small
// compiled model, odt's default model (examples/default). The input is a
// program: each operation is one byte choosing the call and the bytes after
// it choosing its arguments, among them tensors of any dtype code, rank and
// dims (wrong ones included) filled with the input's bytes (NaN, huge and
// out-of-range labels included), handles in any order, outputs that do not
// fit, unknown names, property kinds and thread counts.
//
// The contract under test: every call returns NULL or a status with a
// message, never crashes, hangs or trips ASan/UBSan, and a session stays
// usable after an error. What the header forbids is not done (a state is
// released only after its sessions; one thread).

#include "Tensor.h"
#include "odt/odt.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>


namespace {

std::string modelDir, dataDir, scratchDir;
std::vector<char> libraryBytes, checkpointBytes;

/// The fuzzer's bytes, read front to back; zeros once they run out.
class Program {
public:
  Program(const uint8_t *data, size_t size) : data(data), size(size) {}
  bool done() const { return position >= size; }
  uint8_t byte() { return position < size ? data[position++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= uint32_t(byte()) << (8 * i);
    return v;
  }
  float f32() {
    uint32_t bits = u32();
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  /// Copies up to `count` bytes (zeros past the end).
  void fill(void *out, size_t count) {
    uint8_t *to = static_cast<uint8_t *>(out);
    for (size_t i = 0; i < count; ++i)
      to[i] = byte();
  }

private:
  const uint8_t *data;
  size_t size, position = 0;
};

/// A status the call returned: NULL, or an error that must say something.
void consume(OdtStatus *status) {
  if (!status)
    return;
  const char *message = OdtGetErrorMessage(status);
  if (!message || !*message) {
    std::fprintf(stderr, "an error status without a message\n");
    std::abort();
  }
  OdtReleaseStatus(status);
}

struct PooledValue {
  OdtValue *value = nullptr;
  /// The caller memory of a value made with OdtCreateTensorWithData.
  std::unique_ptr<std::vector<uint8_t>> memory;
};

/// The handles one input plays with, all released at its end.
struct World {
  static constexpr int kSlots = 2, kValues = 8;
  OdtCheckpointState *states[kSlots] = {};
  OdtTrainingSession *sessions[kSlots] = {};
  int sessionState[kSlots] = {-1, -1};
  PooledValue values[kValues];

  ~World() {
    for (OdtTrainingSession *&session : sessions)
      OdtReleaseTrainingSession(session);
    for (OdtCheckpointState *state : states)
      OdtReleaseCheckpointState(state);
    for (PooledValue &v : values)
      OdtReleaseValue(v.value);
  }
  bool stateInUse(int slot) const {
    for (int s = 0; s < kSlots; ++s)
      if (sessions[s] && sessionState[s] == slot)
        return true;
    return false;
  }
  void setValue(int index, OdtValue *value) {
    OdtReleaseValue(values[index].value);
    values[index].memory.reset();
    values[index].value = value;
  }
  /// A value of the pool or NULL.
  OdtValue *value(Program &p) {
    uint8_t choice = p.byte();
    return choice % 5 == 4 ? nullptr : values[choice % kValues].value;
  }
};

const OdtDataType kTypes[] = {ODT_FLOAT, ODT_INT64, ODT_INT32, ODT_UINT8, ODT_DOUBLE,
                              ODT_BOOL, static_cast<OdtDataType>(99),
                              static_cast<OdtDataType>(-1)};

/// Bytes of an element; unknown dtype codes count as 1, so their tensors
/// still get memory to refuse.
size_t typeSize(OdtDataType type) {
  // OdtDataType numbers as ONNX does, like the runtime's DataType.
  return std::max<size_t>(1, odt::dataTypeSize(static_cast<odt::DataType>(type)));
}

/// A tensor: mostly the model's own kinds ([B, 16] float input, [B] int64
/// labels), else any dtype code, rank and dims.
void makeTensor(Program &p, World &world) {
  int index = p.byte() % World::kValues;
  uint8_t kind = p.byte();
  OdtDataType type;
  std::vector<int64_t> shape;
  int64_t batch = p.byte() % 6;
  if (kind % 4 == 0) {
    type = ODT_FLOAT;
    shape = {batch, 16};
  } else if (kind % 4 == 1) {
    type = ODT_INT64;
    shape = {batch};
  } else {
    type = kTypes[p.byte() % std::size(kTypes)];
    size_t rank = p.byte() % 5;
    for (size_t i = 0; i < rank; ++i) {
      uint8_t d = p.byte();
      shape.push_back(d == 255 ? -1 : d % 40);
    }
  }
  OdtValue *out = nullptr;
  if (p.byte() % 2) {
    consume(OdtCreateTensor(type, shape.empty() ? nullptr : shape.data(), shape.size(),
                            &out));
    if (out) {
      void *data = nullptr;
      size_t count = 0;
      consume(OdtGetTensorData(out, &data));
      consume(OdtGetTensorElementCount(out, &count));
      if (data && count <= (1u << 16))
        p.fill(data, count * typeSize(type));
    }
    world.setValue(index, out);
    return;
  }
  // Caller memory: the right size or a wrong one.
  int64_t elements = 1;
  bool sane = true;
  for (int64_t d : shape) {
    sane &= d >= 0 && d < 4096;
    elements *= sane ? d : 1;
  }
  size_t bytes = sane ? size_t(elements) * typeSize(type) : 16;
  uint8_t wrong = p.byte();
  if (wrong % 8 == 0)
    bytes += wrong % 3 ? 4 : 1;
  else if (wrong % 8 == 1 && bytes)
    bytes -= 1;
  auto memory = std::make_unique<std::vector<uint8_t>>(bytes);
  p.fill(memory->data(), std::min<size_t>(bytes, 1u << 16));
  if (type == ODT_INT64 && p.byte() % 2) // mostly labels in range
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
      int64_t label = int64_t((*memory)[i] % 5);
      std::memcpy(memory->data() + i, &label, 8);
    }
  consume(OdtCreateTensorWithData(type, shape.empty() ? nullptr : shape.data(),
                                  shape.size(), memory->data(), bytes, &out));
  world.setValue(index, out);
  if (out)
    world.values[index].memory = std::move(memory);
}

const char *nameOf(Program &p) {
  static const char *const names[] = {"fc1.weight", "fc1.bias",   "fc2.weight", "fc2.bias",
                                      "",           "nope",       "loss",       "input",
                                      "odt.learning_rate", "prop"};
  return names[p.byte() % std::size(names)];
}

void step(Program &p, World &world, bool train) {
  OdtTrainingSession *session = world.sessions[p.byte() % World::kSlots];
  size_t inputCount = p.byte() % 4;
  const OdtValue *inputs[3] = {};
  for (size_t i = 0; i < inputCount && i < 3; ++i)
    inputs[i] = world.value(p);
  size_t outputCount = p.byte() % 3;
  OdtValue *outputs[2] = {};
  int outputSlots[2] = {-1, -1};
  for (size_t i = 0; i < outputCount; ++i)
    if (p.byte() % 2) { // an existing value as the output (must fit or fail)
      outputSlots[i] = p.byte() % World::kValues;
      outputs[i] = world.values[outputSlots[i]].value;
    }
  OdtStatus *status =
      train ? OdtTrainStep(session, inputCount, inputCount ? inputs : nullptr,
                           outputCount, outputCount ? outputs : nullptr)
            : OdtEvalStep(session, inputCount, inputCount ? inputs : nullptr,
                          outputCount, outputCount ? outputs : nullptr);
  bool ok = status == nullptr;
  consume(status);
  // Entries passed as NULL (a NULL pool slot included) receive new values
  // that belong to the caller: into the pool. A failed step hands nothing
  // over (whatever it left there would be released too).
  for (size_t i = 0; i < outputCount; ++i) {
    bool passedNull = outputSlots[i] < 0 || !world.values[outputSlots[i]].value;
    if (!passedNull || !outputs[i])
      continue;
    if (!ok) {
      OdtReleaseValue(outputs[i]);
      continue;
    }
    world.setValue(p.byte() % World::kValues, outputs[i]);
  }
}

void runOperation(Program &p, World &world) {
  uint8_t op = p.byte() % 24;
  int slot = p.byte() % World::kSlots;
  OdtTrainingSession *session = world.sessions[slot];
  switch (op) {
  case 0: { // a checkpoint into a state slot (not one a session uses)
    if (world.stateInUse(slot))
      return;
    OdtCheckpointState *state = nullptr;
    uint8_t source = p.byte() % 5;
    std::string path = source == 0   ? dataDir + "/checkpoint"
                       : source == 1 ? dataDir + "/nominal_checkpoint"
                       : source == 2 ? scratchDir + "/saved.ckpt"
                                     : scratchDir + "/missing.ckpt";
    if (source == 4) {
      // The real checkpoint's bytes with a few of them changed.
      std::vector<char> bytes = checkpointBytes;
      for (int i = p.byte() % 4; i > 0 && !bytes.empty(); --i)
        bytes[p.u32() % bytes.size()] = char(p.byte());
      consume(OdtLoadCheckpointFromBuffer(bytes.data(), bytes.size(), &state));
    } else {
      consume(OdtLoadCheckpoint(path.c_str(), &state));
    }
    if (state) {
      OdtReleaseCheckpointState(world.states[slot]);
      world.states[slot] = state;
    }
    return;
  }
  case 1: { // a session over a state
    int stateSlot = p.byte() % World::kSlots;
    OdtTrainingSession *created = nullptr;
    uint8_t how = p.byte() % 4;
    if (how == 0)
      consume(OdtCreateTrainingSessionFromBuffer(world.states[stateSlot],
                                                 libraryBytes.data(),
                                                 libraryBytes.size(), &created));
    else
      consume(OdtCreateTrainingSession(world.states[stateSlot],
                                       how == 3 ? "/nonexistent" : modelDir.c_str(),
                                       &created));
    if (created) {
      OdtReleaseTrainingSession(world.sessions[slot]);
      world.sessions[slot] = created;
      world.sessionState[slot] = stateSlot;
    }
    return;
  }
  case 2:
    OdtReleaseTrainingSession(session);
    world.sessions[slot] = nullptr;
    return;
  case 3:
    if (!world.stateInUse(slot)) {
      OdtReleaseCheckpointState(world.states[slot]);
      world.states[slot] = nullptr;
    }
    return;
  case 4:
    makeTensor(p, world);
    return;
  case 5:
  case 6:
    step(p, world, op == 5);
    return;
  case 7:
    consume(OdtOptimizerStep(session));
    return;
  case 8:
    consume(OdtLazyResetGrad(session));
    return;
  case 9: {
    consume(OdtSetLearningRate(session, p.f32()));
    float lr = 0;
    consume(OdtGetLearningRate(session, &lr));
    return;
  }
  case 10: {
    int64_t warmup = int64_t(int32_t(p.u32())) % 50, total = int64_t(int32_t(p.u32())) % 100;
    uint8_t kind = p.byte() % 3;
    float initial = p.f32();
    if (kind == 0)
      consume(OdtRegisterLinearLRScheduler(session, warmup, total, initial));
    else if (kind == 1)
      consume(OdtRegisterCosineLRScheduler(session, warmup, total, initial,
                                           double(p.f32())));
    else
      consume(OdtRegisterConstantLRScheduler(session, warmup, initial));
    return;
  }
  case 11:
    consume(OdtSchedulerStep(session));
    return;
  case 12: {
    size_t size = 0;
    bool trainable = p.byte() % 2;
    consume(OdtGetParametersSize(session, &size, trainable));
    consume(OdtCopyParametersToBuffer(session, world.value(p), trainable));
    return;
  }
  case 13:
    consume(OdtCopyBufferToParameters(session, world.value(p), p.byte() % 2));
    return;
  case 14: {
    std::string path = scratchDir + (p.byte() % 4 ? "/saved.ckpt" : "/no-such-dir/x.ckpt");
    consume(OdtSaveCheckpoint(world.states[p.byte() % World::kSlots], path.c_str(),
                              p.byte() % 2));
    return;
  }
  case 15: {
    OdtCheckpointState *state = world.states[slot];
    const char *name = nameOf(p);
    int32_t code = int32_t(p.byte() % 4 == 3 ? p.u32() : p.byte() % 3);
    OdtPropertyType type = static_cast<OdtPropertyType>(code);
    int64_t i = int64_t(p.u32());
    float f = p.f32();
    const void *value = code == ODT_INT_PROPERTY     ? static_cast<const void *>(&i)
                        : code == ODT_FLOAT_PROPERTY ? static_cast<const void *>(&f)
                                                     : "text";
    if (p.byte() % 2)
      consume(OdtAddProperty(state, name, type, p.byte() % 8 ? value : nullptr));
    OdtPropertyType got;
    const void *read = nullptr;
    consume(OdtGetProperty(state, name, &got, &read));
    return;
  }
  case 16: {
    OdtCheckpointState *state = world.states[slot];
    const char *name = nameOf(p);
    if (p.byte() % 2) {
      OdtValue *parameter = nullptr;
      consume(OdtGetParameter(state, name, &parameter));
      if (parameter)
        world.setValue(p.byte() % World::kValues, parameter);
    } else {
      consume(OdtUpdateParameter(state, name, world.value(p)));
    }
    return;
  }
  case 17: {
    OdtCheckpointState *state = world.states[slot];
    const char *name = nameOf(p);
    OdtDataType type;
    size_t rank = 0;
    const int64_t *dims = nullptr;
    bool requiresGrad = false;
    OdtValue *gradient = nullptr;
    consume(OdtGetParameterTypeAndShape(state, name, &type, &rank, &dims));
    consume(OdtGetParameterRequiresGrad(state, name, &requiresGrad));
    consume(OdtGetParameterGradient(state, name, &gradient));
    if (gradient)
      world.setValue(p.byte() % World::kValues, gradient);
    return;
  }
  case 18: { // names by index, in and out of range
    size_t index = p.byte() % 6, count = 0;
    const char *name = nullptr;
    OdtCheckpointState *state = world.states[slot];
    consume(OdtGetParameterCount(state, &count));
    consume(OdtGetParameterName(state, index, &name));
    consume(OdtGetPropertyCount(state, &count));
    consume(OdtGetPropertyName(state, index, &name));
    consume(OdtGetTrainingModelInputCount(session, &count));
    consume(OdtGetTrainingModelInputName(session, index, &name));
    consume(OdtGetTrainingModelOutputCount(session, &count));
    consume(OdtGetTrainingModelOutputName(session, index, &name));
    consume(OdtGetEvalModelInputCount(session, &count));
    consume(OdtGetEvalModelInputName(session, index, &name));
    consume(OdtGetEvalModelOutputCount(session, &count));
    consume(OdtGetEvalModelOutputName(session, index, &name));
    return;
  }
  case 19: {
    const char *outputs[2] = {nameOf(p), "logits"};
    std::string path = scratchDir + "/inference.onnx";
    consume(OdtExportModelForInferencing(session, path.c_str(), p.byte() % 3, outputs));
    return;
  }
  case 20: {
    int threads = int(p.byte() % 8) - 2;
    consume(OdtSetSessionThreads(session, threads));
    consume(OdtSetSessionFlushDenormals(session, p.byte() % 2));
    consume(OdtSetSessionStopOnNonFiniteLoss(session, p.byte() % 2));
    int got = 0;
    bool flag = false;
    consume(OdtGetSessionThreads(session, &got));
    consume(OdtGetSessionFlushDenormals(session, &flag));
    consume(OdtGetSessionStopOnNonFiniteLoss(session, &flag));
    return;
  }
  case 21:
    consume(OdtSetSeed(int64_t(p.u32())));
    return;
  case 22:
    world.setValue(p.byte() % World::kValues, nullptr);
    return;
  default: { // a value's accessors
    OdtValue *value = world.value(p);
    OdtDataType type;
    size_t rank = 0, count = 0;
    const int64_t *dims = nullptr;
    void *data = nullptr;
    consume(OdtGetTensorDataType(value, &type));
    consume(OdtGetTensorShape(value, &rank, &dims));
    consume(OdtGetTensorElementCount(value, &count));
    consume(OdtGetTensorData(value, &data));
    return;
  }
  }
}

std::vector<char> readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(file), {});
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *model = std::getenv("ODT_FUZZ_MODEL_DIR");
  const char *data = std::getenv("ODT_FUZZ_DATA_DIR");
  modelDir = model ? model : ODT_FUZZ_MODEL_DIR;
  dataDir = data ? data : ODT_FUZZ_DATA_DIR;
  libraryBytes = readFile(modelDir + "/libmodel.so");
  checkpointBytes = readFile(dataDir + "/checkpoint");
  if (libraryBytes.empty() || checkpointBytes.empty()) {
    std::fprintf(stderr, "capi_sequence_fuzzer: no model at %s or checkpoint at %s\n",
                 modelDir.c_str(), dataDir.c_str());
    std::exit(1);
  }
  char scratch[] = "/tmp/odt-capi-fuzzer-XXXXXX";
  if (!mkdtemp(scratch))
    std::exit(1);
  scratchDir = scratch;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Program program(data, size);
  World world;
  for (int operations = 0; !program.done() && operations < 64; ++operations)
    runOperation(program, world);
  return 0;
}
