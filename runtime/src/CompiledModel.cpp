#include "CompiledModel.h"
#include "FloatMode.h"

#include "FileUtil.h"
#include "FlatbuffersRead.h"
#include "KernelRunner.h"
#include "StepAllocator.h"
#include "ThreadPool.h"
#include "model_generated.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace odt {

const char *argumentRoleName(ArgumentRole role) {
  switch (role) {
#define ODT_ROLE_WORDS(name, value, spelling, words)                           \
  case ArgumentRole::name:                                                     \
    return words;
    ODT_ARGUMENT_ROLES(ODT_ROLE_WORDS)
#undef ODT_ROLE_WORDS
  }
  return "argument";
}

bool SymbolBindings::bind(const std::string &symbol, int64_t value,
                          int64_t &previous) {
  for (auto &[name, bound] : values)
    if (*name == symbol) {
      previous = bound;
      return bound == value;
    }
  values.emplace_back(&symbol, value);
  return true;
}

int64_t SymbolBindings::lookup(const std::string &symbol) const {
  for (const auto &[name, bound] : values)
    if (*name == symbol)
      return bound;
  return -1;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

void *resolveWithDlsym(void *library, const char *name) {
  return dlsym(library, name);
}

bool isCIdentifier(const std::string &name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

// flatc's reading of model.fbs and the build's (ModelAbi.h, made by
// runtime/schema/ModelAbi.cmake) give every role the same value and the same
// ABI version, and ModelAbi.h lists every role flatc knows.
#define ODT_ROLE_MATCHES_SCHEMA(name, value, spelling, words)                  \
  static_assert(static_cast<int>(fb::ArgumentRole::name) == value,             \
                "model.fbs and ModelAbi.h disagree on role " #name);
ODT_ARGUMENT_ROLES(ODT_ROLE_MATCHES_SCHEMA)
#undef ODT_ROLE_MATCHES_SCHEMA
#define ODT_ROLE_COUNT(name, value, spelling, words) +1
static_assert(0 ODT_ARGUMENT_ROLES(ODT_ROLE_COUNT) ==
                  static_cast<int>(fb::ArgumentRole::MAX) + 1,
              "ModelAbi.h misses a role of model.fbs");
#undef ODT_ROLE_COUNT
static_assert(static_cast<int>(fb::ModelAbiVersion::Current) ==
                  kModelABIVersion,
              "model.fbs and ModelAbi.h disagree on the ABI version");

Result<ArgumentRole> convertRole(fb::ArgumentRole role) {
  switch (static_cast<int>(role)) {
#define ODT_ROLE_FROM_SCHEMA(name, value, spelling, words)                     \
  case value:                                                                  \
    return ArgumentRole::name;
    ODT_ARGUMENT_ROLES(ODT_ROLE_FROM_SCHEMA)
#undef ODT_ROLE_FROM_SCHEMA
  }
  return Status::error("unknown argument role " +
                       std::to_string(static_cast<int>(role)));
}

/// dlopen maps whatever the program headers say; a truncated or damaged
/// library would fault (SIGBUS) instead of failing. So the image is checked
/// first: a 64-bit shared object for this machine whose headers and segments
/// all lie inside the file.
Status checkSharedLibrary(const uint8_t *data, size_t size,
                          const std::string &origin) {
  auto fail = [&](const std::string &why) {
    return Status::error("'" + origin +
                         "' is not a usable model library: " + why);
  };
  Elf64_Ehdr header;
  if (size < sizeof header)
    return fail("it is shorter than an ELF header");
  std::memcpy(&header, data, sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return fail("it is not an ELF file");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB)
    return fail("it is not a 64-bit little-endian ELF file");
  if (header.e_type != ET_DYN)
    return fail("it is not a shared library");
#if defined(__x86_64__)
  const uint16_t machine = EM_X86_64;
#elif defined(__aarch64__)
  const uint16_t machine = EM_AARCH64;
#else
  const uint16_t machine = header.e_machine;
#endif
  if (header.e_machine != machine)
    return fail("it was built for another processor");
  auto within = [&](uint64_t offset, uint64_t count, uint64_t entry) {
    return offset <= size && count <= (size - offset) / (entry ? entry : 1);
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      !within(header.e_phoff, header.e_phnum, sizeof(Elf64_Phdr)))
    return fail("its program headers lie outside the file (truncated?)");
  if (header.e_shnum &&
      (header.e_shentsize != sizeof(Elf64_Shdr) ||
       !within(header.e_shoff, header.e_shnum, sizeof(Elf64_Shdr))))
    return fail("its section headers lie outside the file (truncated?)");
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, data + header.e_phoff + i * sizeof segment,
                sizeof segment);
    if (segment.p_filesz && !within(segment.p_offset, segment.p_filesz, 1))
      return fail("segment " + std::to_string(i) +
                  " lies outside the file (truncated?)");
  }
  return Status::ok();
}

} // namespace

Result<std::shared_ptr<CompiledModel>>
CompiledModel::load(const std::string &path) {
  std::string file = path;
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return Status::error("cannot open compiled model '" + path +
                         "': no such file or folder");
  if (S_ISDIR(info.st_mode))
    file = path + "/libmodel.so";
  // A path without a slash would make dlopen search the library path.
  if (file.find('/') == std::string::npos)
    file = "./" + file;
  Result<std::vector<uint8_t>> image = readWholeFile(file, "compiled model");
  if (!image)
    return image.getStatus();
  ODT_RETURN_IF_ERROR(checkSharedLibrary(image->data(), image->size(), file));
  void *library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    return Status::error("cannot load compiled model '" + file +
                         "': " + (reason ? reason : "unknown error"));
  }
  const char *prefix = "odt_model";
  auto *descriptor = static_cast<const uint8_t *>(
      dlsym(library, (std::string(prefix) + "_descriptor").c_str()));
  auto *size = static_cast<const uint64_t *>(
      dlsym(library, (std::string(prefix) + "_descriptor_size").c_str()));
  if (!descriptor || !size) {
    dlclose(library);
    return Status::error("'" + file +
                         "' is not a model compiled by odt-compile (no "
                         "odt_model_descriptor symbol)");
  }
  Result<std::shared_ptr<CompiledModel>> model =
      fromDescriptor(descriptor, *size, resolveWithDlsym, library, file);
  if (!model) {
    dlclose(library);
    return model.getStatus();
  }
  (*model)->library = library;
  return model;
}

Result<std::shared_ptr<CompiledModel>>
CompiledModel::loadFromBuffer(const void *bytes, size_t size) {
  if (!bytes)
    return Status::error("no library bytes given");
  ODT_RETURN_IF_ERROR(checkSharedLibrary(static_cast<const uint8_t *>(bytes),
                                         size, "<buffer>"));
  int fd = memfd_create("odt-model", MFD_CLOEXEC);
  if (fd < 0)
    return Status::error(std::string("cannot create an in-memory file: ") +
                         std::strerror(errno));
  const char *data = static_cast<const char *>(bytes);
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int error = errno;
      close(fd);
      return Status::error(std::string("cannot write the in-memory model: ") +
                           std::strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  // dlopen keeps its own mapping; the descriptor can be closed afterwards.
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  Result<std::shared_ptr<CompiledModel>> model = load(path);
  close(fd);
  if (model)
    (*model)->source = "<buffer>";
  return model;
}

Result<std::shared_ptr<CompiledModel>>
CompiledModel::fromDescriptor(const uint8_t *descriptor, uint64_t size,
                              SymbolResolver resolve, void *context,
                              const std::string &origin) {
  std::shared_ptr<CompiledModel> model(new CompiledModel());
  model->source = origin;
  Status status = model->parseDescriptor(descriptor, size, resolve, context);
  if (!status)
    return status.withContext("compiled model '" + origin + "'");
  return model;
}

CompiledModel::~CompiledModel() {
  if (library)
    dlclose(library);
}

Status CompiledModel::parseDescriptor(const uint8_t *data, uint64_t size,
                                      SymbolResolver resolve, void *context) {
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyModelBuffer(verifier))
    return Status::error("the model descriptor is corrupt");
  const fb::Model *model = fb::GetModel(data);
  if (model->abi_version() != kModelABIVersion)
    return Status::error(
        "made for ABI version " + std::to_string(model->abi_version()) +
        ", this runtime calls version " + std::to_string(kModelABIVersion) +
        "; recompile it with this odt-compile");
  modelName = model->name() ? model->name()->str() : "odt_model";
  // Names become symbols looked up in the library: a name that is not a C
  // identifier (an embedded NUL above all) would look up another symbol.
  if (!isCIdentifier(modelName))
    return Status::error("the model name is not a C identifier");
  // The model's heap buffers come from the step allocator (reused from one
  // step to the next) when the model has the hook; a GPU build's are device
  // memory, and its launches go to the device, through the KernelRunner of
  // the call (KernelRunner.h).
  bool gpuBuild = model->gpu_images() != nullptr;
  if (void *hook = resolve(context, (modelName + "_set_allocator").c_str())) {
    void (*setAllocator)(void *(*)(uint64_t), void (*)(void *));
    std::memcpy(&setAllocator, &hook, sizeof hook);
    if (gpuBuild)
      setAllocator(cuda::KernelRunner::allocateHook,
                   cuda::KernelRunner::releaseHook);
    else
      setAllocator(stepAllocate, stepRelease);
  }
  void *launcherHook = resolve(context, (modelName + "_set_launcher").c_str());
  // A library that launches kernels under a descriptor that lists none
  // (altered, or mismatched) would run its steps on the CPU computing
  // nothing.
  if (!gpuBuild && launcherHook)
    return Status::error("the library launches GPU kernels but its model "
                         "descriptor lists none");
  if (gpuBuild) {
    void *hook = launcherHook;
    if (!hook)
      return Status::error("a GPU build without " + modelName +
                           "_set_launcher: recompile it with this odt-compile");
    void (*setLauncher)(void (*)(int32_t, int64_t, int64_t, int64_t, int64_t,
                                 int64_t, int64_t, int32_t, void **, int32_t));
    std::memcpy(&setLauncher, &hook, sizeof hook);
    setLauncher(cuda::KernelRunner::launchHook);
  }
  // Its parallel loops run on the thread pool of the calling session.
  if (void *hook = resolve(context, (modelName + "_set_parallel").c_str())) {
    void (*setParallel)(void (*)(ParallelTask, void *, int64_t));
    std::memcpy(&setParallel, &hook, sizeof hook);
    setParallel(parallelFor);
  }
  if (model->parameters())
    for (const fb::ParameterInfo *param : *model->parameters()) {
      if (!param->name() || !isKnownFixedSizeType(param->data_type()))
        return Status::error("a parameter has no name or an unknown dtype");
      ParameterSpec spec;
      spec.name = param->name()->str();
      spec.dtype = static_cast<DataType>(param->data_type());
      spec.shape = readInt64Vector(param->dims());
      spec.trainable = param->trainable();
      params.push_back(std::move(spec));
    }
  if (model->entry_points())
    for (const fb::EntryPoint *entry : *model->entry_points()) {
      EntryPointSpec spec;
      if (entry->kind() != fb::EntryKind::Train &&
          entry->kind() != fb::EntryKind::Eval &&
          entry->kind() != fb::EntryKind::Optimizer)
        return Status::error("an entry point has an unknown kind " +
                             std::to_string(static_cast<int>(entry->kind())));
      spec.kind = static_cast<EntryKind>(entry->kind());
      if (!entry->symbol())
        return Status::error("an entry point has no symbol");
      spec.symbol = entry->symbol()->str();
      if (!isCIdentifier(spec.symbol) ||
          (entry->shape_symbol() &&
           !isCIdentifier(entry->shape_symbol()->str())))
        return Status::error("an entry point's symbol is not a C identifier");
      spec.function = reinterpret_cast<EntryFunction>(
          resolve(context, spec.symbol.c_str()));
      if (!spec.function)
        return Status::error("entry point '" + spec.symbol + "' is missing");
      if (entry->shape_symbol()) {
        spec.shapeFunction = reinterpret_cast<EntryFunction>(
            resolve(context, entry->shape_symbol()->c_str()));
        if (!spec.shapeFunction)
          return Status::error("shape function '" +
                               entry->shape_symbol()->str() + "' is missing");
      }
      if (entry->divisibility())
        for (const fb::Divisibility *requirement : *entry->divisibility()) {
          DivisibilitySpec divisibility;
          if (requirement->symbols())
            for (const flatbuffers::String *symbol : *requirement->symbols())
              divisibility.symbols.push_back(symbol->str());
          divisibility.multipleOf = requirement->multiple_of();
          if (divisibility.multipleOf < 1)
            return Status::error("a divisibility requirement is not positive");
          if (requirement->reason())
            divisibility.reason = requirement->reason()->str();
          spec.divisibility.push_back(std::move(divisibility));
        }
      if (entry->dim_checks()) {
        if (!spec.shapeFunction)
          return Status::error("entry point '" + spec.symbol +
                               "' has dim checks but no shape function");
        for (const flatbuffers::String *message : *entry->dim_checks())
          spec.dimChecks.push_back(message ? message->str() : "");
      }
      if (entry->arguments())
        for (const fb::Argument *arg : *entry->arguments()) {
          ArgumentSpec argument;
          argument.name = arg->name() ? arg->name()->str() : "";
          Result<ArgumentRole> role = convertRole(arg->role());
          if (!role)
            return role.getStatus();
          argument.role = *role;
          if (!isKnownFixedSizeType(arg->data_type()))
            return Status::error("argument '" + argument.name +
                                 "' has an unknown dtype");
          argument.dtype = static_cast<DataType>(arg->data_type());
          if (arg->dims())
            for (const fb::Dim *dim : *arg->dims())
              argument.dims.push_back(
                  {dim->size(), dim->symbol() ? dim->symbol()->str() : ""});
          argument.parameter = arg->parameter();
          if (argument.parameter >= static_cast<int>(params.size()))
            return Status::error("argument '" + argument.name +
                                 "' refers to a parameter that does not exist");
          argument.writes = arg->writes();
          argument.hasValueRange = arg->value_max() >= arg->value_min();
          argument.valueMin = arg->value_min();
          argument.valueMax = arg->value_max();
          argument.hasValueException = arg->has_value_exception();
          argument.valueException = arg->value_exception();
          if (arg->value_range_reason())
            argument.valueRangeReason = arg->value_range_reason()->str();
          if (argument.hasValueRange && argument.dtype != DataType::Int32 &&
              argument.dtype != DataType::Int64)
            return Status::error("argument '" + argument.name +
                                 "' has a value range but is not an integer");
          spec.arguments.push_back(std::move(argument));
        }
      entries.push_back(std::move(spec));
    }
  if (const fb::OptimizerInfo *optimizer = model->optimizer()) {
    optimizerSpec.kind =
        optimizer->kind() == fb::OptimizerKind::AdamW ? OptimizerKind::AdamW
        : optimizer->kind() == fb::OptimizerKind::SGD ? OptimizerKind::SGD
                                                      : OptimizerKind::None;
    optimizerSpec.alpha = optimizer->alpha();
    optimizerSpec.beta = optimizer->beta();
    optimizerSpec.epsilon = optimizer->epsilon();
    optimizerSpec.weightDecay = optimizer->weight_decay();
    optimizerSpec.correctBias = optimizer->correct_bias();
    optimizerSpec.adamMode = optimizer->adam_mode();
  }
  // Copied: fromDescriptor's caller need not keep the descriptor alive.
  if (const auto *evalModel = model->eval_model())
    evalTemplate.assign(evalModel->begin(), evalModel->end());
  if (const auto *names = model->eval_model_parameters())
    for (const flatbuffers::String *name : *names) {
      if (!name)
        return Status::error("an eval model parameter has no name");
      evalTemplateParameters.push_back(name->str());
    }
  // A GPU build: kernels and PTX come together, or neither.
  const auto *kernels = model->gpu_kernels();
  const auto *images = model->gpu_images();
  if ((kernels != nullptr) != (images != nullptr) ||
      (images && images->size() == 0))
    return Status::error("the model descriptor has GPU kernels without "
                         "their PTX, or PTX without kernels");
  if (kernels) {
    for (const fb::GpuKernel *kernel : *kernels) {
      if (!kernel || !kernel->name() || !isCIdentifier(kernel->name()->str()) ||
          kernel->parameters() < 0)
        return Status::error("a GPU kernel in the model descriptor has no "
                             "valid name or parameter count");
      gpuKernelSpecs.push_back({kernel->name()->str(), kernel->parameters()});
    }
    for (const fb::GpuImage *image : *images) {
      // cuModuleLoadData reads the PTX up to its NUL.
      if (!image || !image->chip() || !image->ptx() ||
          image->ptx()->size() == 0 ||
          image->ptx()->Get(image->ptx()->size() - 1) != 0)
        return Status::error("a GPU kernel image in the model descriptor is "
                             "not NUL-terminated PTX for a named chip");
      GPUImageSpec spec{
          image->chip()->str(),
          std::vector<uint8_t>(image->ptx()->begin(), image->ptx()->end()),
          {}};
      if (const flatbuffers::Vector<uint8_t> *cubin = image->cubin()) {
        // An ELF object (the driver checks the rest when it loads it).
        if (cubin->size() < 4 || cubin->Get(0) != 0x7f ||
            cubin->Get(1) != 'E' || cubin->Get(2) != 'L' ||
            cubin->Get(3) != 'F')
          return Status::error("the " + spec.chip +
                               " cubin in the model descriptor is not an "
                               "ELF object");
        spec.cubin.assign(cubin->begin(), cubin->end());
      }
      gpuImageSpecs.push_back(std::move(spec));
    }
  }
  return Status::ok();
}

namespace {
/// 87 for "sm_87"; -1 for anything else.
int chipNumber(const std::string &chip) {
  if (chip.size() < 4 || chip.compare(0, 3, "sm_") != 0)
    return -1;
  int number = 0;
  for (size_t i = 3; i < chip.size(); ++i) {
    if (chip[i] < '0' || chip[i] > '9' || number > 100000)
      return -1;
    number = number * 10 + (chip[i] - '0');
  }
  return number;
}
} // namespace

const GPUImageSpec *selectGPUImage(const CompiledModel &model,
                                   const std::string &chip) {
  int device = chipNumber(chip);
  const GPUImageSpec *best = nullptr;
  int bestNumber = -1;
  for (const GPUImageSpec &image : model.gpuImages()) {
    int number = chipNumber(image.chip);
    if (number < 0 || number > device || number <= bestNumber)
      continue;
    best = &image;
    bestNumber = number;
  }
  return best;
}

std::string CompiledModel::gpuChips() const {
  std::string chips;
  for (const GPUImageSpec &image : gpuImageSpecs)
    chips += (chips.empty() ? "" : ", ") + image.chip;
  return chips;
}

const EntryPointSpec *CompiledModel::entryPoint(EntryKind kind) const {
  for (const EntryPointSpec &entry : entries)
    if (entry.kind == kind)
      return &entry;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

EntryCall::EntryCall(const EntryPointSpec &spec)
    : entry(&spec), tensors(spec.arguments.size(), nullptr),
      descriptors(spec.arguments.size()),
      pointers(spec.arguments.size(), nullptr) {
  // MLIR's memref descriptor: allocated, aligned, offset, sizes, strides.
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    descriptors[i].assign(3 + 2 * spec.arguments[i].dims.size(), 0);
    pointers[i] = descriptors[i].data();
  }
  if (!spec.shapeFunction)
    return;
  size_t totalRank = 0;
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    ArgumentRole role = spec.arguments[i].role;
    if (role == ArgumentRole::UserOutput)
      totalRank += spec.arguments[i].dims.size();
    // The shape function was made from the graph, before codegen added
    // the panel caches.
    else if (role != ArgumentRole::PackedPanels &&
             role != ArgumentRole::PanelsStale)
      shapePointers.push_back(pointers[i]);
  }
  // The output dims, then two sizes per dim check.
  size_t length = totalRank + 2 * spec.dimChecks.size();
  outputDims.assign(length, 0);
  auto address = reinterpret_cast<int64_t>(outputDims.data());
  outputDimsDescriptor = {address, address, 0, static_cast<int64_t>(length), 1};
  shapePointers.push_back(outputDimsDescriptor.data());
}

Status EntryCall::bindOutputShapes(SymbolBindings &bindings) {
  if (!entry->shapeFunction)
    return Status::ok();
  entry->shapeFunction(shapePointers.data());
  // Checks first: a size the inputs contradict explains an odd output dim.
  size_t firstCheck = outputDims.size() - 2 * entry->dimChecks.size();
  for (size_t c = 0; c < entry->dimChecks.size(); ++c) {
    int64_t computed = outputDims[firstCheck + 2 * c];
    int64_t expected = outputDims[firstCheck + 2 * c + 1];
    if (computed != expected)
      return Status::error("the inputs disagree: " + entry->dimChecks[c] +
                           "; they are " + std::to_string(computed) + " and " +
                           std::to_string(expected));
  }
  size_t next = 0;
  for (const ArgumentSpec &arg : entry->arguments) {
    if (arg.role != ArgumentRole::UserOutput)
      continue;
    for (size_t d = 0; d < arg.dims.size(); ++d) {
      int64_t size = outputDims[next++];
      if (size < 0)
        return Status::error("the model computed dim " + std::to_string(d) +
                             " of output '" + arg.name + "' as " +
                             std::to_string(size) +
                             " (the inputs' values are invalid for it)");
      const DimSpec &dim = arg.dims[d];
      int64_t previous = -1;
      if (dim.size >= 0 ? size != dim.size
                        : !bindings.bind(dim.symbol, size, previous))
        return Status::error("the model computed dim " + std::to_string(d) +
                             " of output '" + arg.name + "' as " +
                             std::to_string(size) + ", but its shape says " +
                             (dim.size >= 0 ? std::to_string(dim.size)
                                            : std::to_string(previous)));
    }
  }
  return Status::ok();
}

Status EntryCall::set(size_t index, Tensor &tensor) {
  const ArgumentSpec &arg = entry->arguments[index];
  if (tensor.dtype() != arg.dtype)
    return Status::error(std::string(argumentRoleName(arg.role)) + " '" +
                         arg.name + "' must be " + dataTypeName(arg.dtype) +
                         ", got " + dataTypeName(tensor.dtype()));
  if (tensor.rank() != static_cast<int64_t>(arg.dims.size()))
    return Status::error(std::string(argumentRoleName(arg.role)) + " '" +
                         arg.name + "' must have rank " +
                         std::to_string(arg.dims.size()) + ", got shape " +
                         formatShape(tensor.shape()));
  tensors[index] = &tensor;
  writeMemRefDescriptor(descriptors[index].data(),
                        reinterpret_cast<int64_t>(tensor.data()),
                        tensor.shape());
  return Status::ok();
}

void writeMemRefDescriptor(int64_t *descriptor, int64_t address,
                           const Shape &shape) {
  descriptor[0] = address;
  descriptor[1] = address;
  descriptor[2] = 0;
  size_t rank = shape.size();
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    descriptor[3 + d] = shape[d];
    descriptor[3 + rank + d] = stride;
    stride *= shape[d];
  }
}

Status EntryCall::bindInputShapes(SymbolBindings &bindings) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ArgumentSpec &arg = entry->arguments[i];
    if (arg.role != ArgumentRole::UserInput)
      continue;
    if (!tensors[i])
      return Status::error("internal error: input '" + arg.name +
                           "' was not set");
    const Shape &shape = tensors[i]->shape();
    for (size_t d = 0; d < arg.dims.size(); ++d) {
      const DimSpec &dim = arg.dims[d];
      if (dim.size >= 0) {
        if (shape[d] != dim.size)
          return Status::error("input '" + arg.name + "' has shape " +
                               formatShape(shape) + ", but dim " +
                               std::to_string(d) + " must be " +
                               std::to_string(dim.size));
        continue;
      }
      if (shape[d] == 0)
        return Status::error(
            "input '" + arg.name + "' has shape " + formatShape(shape) +
            ": dim " + std::to_string(d) + " ('" + dim.symbol +
            "') is 0; a step needs at least one element (a mean over no "
            "examples is 0/0)");
      int64_t previous = -1;
      if (!bindings.bind(dim.symbol, shape[d], previous))
        return Status::error(
            "input '" + arg.name + "' has shape " + formatShape(shape) +
            ": dim " + std::to_string(d) + " ('" + dim.symbol + "') is " +
            std::to_string(shape[d]) + ", but another input set it to " +
            std::to_string(previous));
    }
  }
  // What the symbols cannot say (a Reshape's -1 holds only for some sizes).
  // Checked every step: the message is built only when it fails.
  for (const DivisibilitySpec &requirement : entry->divisibility) {
    int64_t remainder = 1 % requirement.multipleOf; // of the product
    bool bound = true;
    for (const std::string &symbol : requirement.symbols) {
      int64_t value = bindings.lookup(symbol);
      bound &= value >= 0;
      if (!bound)
        break;
      remainder = static_cast<int64_t>(static_cast<__int128>(remainder) *
                                       (value % requirement.multipleOf) %
                                       requirement.multipleOf);
    }
    if (!bound || remainder == 0)
      continue;
    std::string names, values;
    for (const std::string &symbol : requirement.symbols) {
      names += (names.empty() ? "" : "*") + symbol;
      values += (values.empty() ? "" : ", ") + symbol + " = " +
                std::to_string(bindings.lookup(symbol));
    }
    return Status::error(
        requirement.reason + ", so " + names + " must be a multiple of " +
        std::to_string(requirement.multipleOf) + "; the inputs give " + values);
  }
  return Status::ok();
}

Status EntryCall::checkOtherShapes(const SymbolBindings &bindings,
                                   bool includeOutputs) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ArgumentSpec &arg = entry->arguments[i];
    if (arg.role == ArgumentRole::UserInput ||
        (!includeOutputs && arg.role == ArgumentRole::UserOutput))
      continue;
    if (!tensors[i])
      return Status::error("internal error: argument '" + arg.name +
                           "' was not set");
    ODT_RETURN_IF_ERROR(expectedShape(i, bindings, scratchShape));
    if (tensors[i]->shape() != scratchShape)
      return Status::error(std::string(argumentRoleName(arg.role)) + " '" +
                           arg.name + "' has shape " +
                           formatShape(tensors[i]->shape()) + ", expected " +
                           formatShape(scratchShape));
  }
  return Status::ok();
}

namespace {

template <typename T>
Status checkValues(const ArgumentSpec &arg, const T *values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = values[i];
    if ((value >= arg.valueMin && value <= arg.valueMax) ||
        (arg.hasValueException && value == arg.valueException))
      continue;
    std::string allowed = "[" + std::to_string(arg.valueMin) + ", " +
                          std::to_string(arg.valueMax) + "]";
    if (arg.hasValueException)
      allowed += " or " + std::to_string(arg.valueException);
    std::string user = arg.valueRangeReason.empty() ? std::string("its op")
                                                    : arg.valueRangeReason;
    return Status::error("input '" + arg.name + "' holds " +
                         std::to_string(value) + " at flat index " +
                         std::to_string(i) + "; " + user + " takes values in " +
                         allowed);
  }
  return Status::ok();
}

} // namespace

Status EntryCall::checkInputValues() const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ArgumentSpec &arg = entry->arguments[i];
    if (arg.role != ArgumentRole::UserInput || !arg.hasValueRange)
      continue;
    const Tensor &tensor = *tensors[i];
    Status status =
        arg.dtype == DataType::Int32
            ? checkValues(arg, tensor.data<int32_t>(), tensor.size())
            : checkValues(arg, tensor.data<int64_t>(), tensor.size());
    ODT_RETURN_IF_ERROR(status);
  }
  return Status::ok();
}

Status EntryCall::expectedShape(size_t index, const SymbolBindings &bindings,
                                Shape &shape) const {
  const ArgumentSpec &arg = entry->arguments[index];
  shape.clear(); // keeps its capacity: no allocation from the second step on
  for (const DimSpec &dim : arg.dims) {
    if (dim.size >= 0) {
      shape.push_back(dim.size);
      continue;
    }
    int64_t value = bindings.lookup(dim.symbol);
    if (value < 0)
      return Status::error("the size of '" + arg.name + "' depends on '" +
                           dim.symbol + "', which no input sets");
    shape.push_back(value);
  }
  return Status::ok();
}

void EntryCall::invoke(ThreadPool *pool, bool flushDenormals) {
  ScopedFloatMode mode(flushDenormals);
  ScopedPool scope(pool);
  entry->function(pointers.data());
}

} // namespace odt
