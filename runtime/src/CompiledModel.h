// CompiledModel: the code odt-compile generated plus its descriptor. Loaded
// from a shared library (dlopen) or from symbols linked into the program.
// Knows how to check caller buffers against the entry points' symbolic shapes
// and how to call an entry point with them (see docs/abi.md).

#ifndef ODT_RUNTIME_COMPILEDMODEL_H
#define ODT_RUNTIME_COMPILEDMODEL_H

#include "ModelAbi.h"
#include "Status.h"
#include "Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace odt {

class ThreadPool;

/// What an entry-point argument is (ModelAbi.h, made from
/// runtime/schema/model.fbs, which also gives kModelABIVersion).
enum class ArgumentRole {
#define ODT_ROLE_ENUMERATOR(name, value, spelling, words) name = value,
  ODT_ARGUMENT_ROLES(ODT_ROLE_ENUMERATOR)
#undef ODT_ROLE_ENUMERATOR
};

const char *argumentRoleName(ArgumentRole role);

/// A dim of an argument: static (size >= 0) or a symbol bound at run time.
struct DimSpec {
  int64_t size = -1;
  std::string symbol;
};

struct ArgumentSpec {
  std::string name;
  ArgumentRole role;
  DataType dtype;
  std::vector<DimSpec> dims;
  int parameter = -1;
  bool writes = false;
  /// For integer inputs used as indices or class labels: every element must
  /// lie in [valueMin, valueMax] or equal valueException (if
  /// hasValueException); valueRangeReason names the op that needs it.
  bool hasValueRange = false;
  int64_t valueMin = 0, valueMax = -1;
  bool hasValueException = false;
  int64_t valueException = 0;
  std::string valueRangeReason;
};

enum class EntryKind { Train, Eval, Optimizer };

using EntryFunction = void (*)(void **);

/// The product of the bound values of `symbols` must be a multiple of
/// `multipleOf`; `reason` names the node that needs it.
struct DivisibilitySpec {
  std::vector<std::string> symbols;
  int64_t multipleOf = 1;
  std::string reason;
};

struct EntryPointSpec {
  EntryKind kind;
  std::string symbol;
  std::vector<ArgumentSpec> arguments;
  EntryFunction function = nullptr;
  /// Computes the output dims no input binds (see docs/abi.md); null when
  /// every output dim follows from the inputs.
  EntryFunction shapeFunction = nullptr;
  std::vector<DivisibilitySpec> divisibility;
  /// What shape inference assumed about sizes the model computes: the shape
  /// function writes two sizes per check after the output dims, which must
  /// be equal; each message names both.
  std::vector<std::string> dimChecks;
};

struct ParameterSpec {
  std::string name;
  DataType dtype;
  Shape shape;
  bool trainable;
};

enum class OptimizerKind { None, AdamW, SGD };

struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::None;
  float alpha = 0.9f, beta = 0.999f, epsilon = 1e-8f, weightDecay = 0.0f;
  bool correctBias = true;
  int adamMode = 0;
};

/// Values of the symbolic dims of one call, bound from the user inputs. Holds
/// pointers to the descriptor's symbol names, so binding allocates nothing
/// once the capacity is reached (reserve it up front).
class SymbolBindings {
public:
  void reserve(size_t count) { values.reserve(count); }
  /// Binds `symbol` to `value`, or checks it against an earlier binding.
  bool bind(const std::string &symbol, int64_t value, int64_t &previous);
  /// The value of `symbol`, or -1 if unbound.
  int64_t lookup(const std::string &symbol) const;
  void clear() { values.clear(); }

private:
  std::vector<std::pair<const std::string *, int64_t>> values;
};

/// A GPU build's kernel (odt-compile --gpu-arch): the host code launches it
/// by its number with `parameters` parameter addresses.
struct GPUKernelSpec {
  std::string name;
  int parameters = 0;
};

/// A GPU build's kernels as PTX for one chip ("sm_90"), NUL-terminated.
struct GPUImageSpec {
  std::string chip;
  std::vector<uint8_t> ptx;
  /// The same kernels assembled for `chip` (SASS; empty when odt-compile
  /// had no ptxas): what a device of exactly that chip loads.
  std::vector<uint8_t> cubin;
};

/// The image a device of `chip` ("sm_87") loads: the one for its chip, else
/// the newest for an older one (the driver compiles PTX for the device it
/// runs on, and PTX for an older chip runs on newer ones); nullptr when all
/// are for newer chips.
const GPUImageSpec *selectGPUImage(const class CompiledModel &model,
                                   const std::string &chip);

/// Resolves an exported symbol of a model by name (dlsym or a static table).
using SymbolResolver = void *(*)(void *context, const char *name);

class CompiledModel {
public:
  /// Loads `path`: a shared library made by odt-compile, or the folder that
  /// holds its libmodel.so.
  static Result<std::shared_ptr<CompiledModel>> load(const std::string &path);

  /// Loads a shared library made by odt-compile from its bytes in memory
  /// (through an anonymous in-memory file; nothing is written to disk).
  static Result<std::shared_ptr<CompiledModel>>
  loadFromBuffer(const void *bytes, size_t size);

  /// A model linked into the program: `descriptor` as exported by model.o
  /// and a resolver for its entry symbols.
  static Result<std::shared_ptr<CompiledModel>>
  fromDescriptor(const uint8_t *descriptor, uint64_t size,
                 SymbolResolver resolve, void *context,
                 const std::string &origin);

  ~CompiledModel();
  CompiledModel(const CompiledModel &) = delete;
  CompiledModel &operator=(const CompiledModel &) = delete;

  const std::string &name() const { return modelName; }
  const std::string &origin() const { return source; }
  const std::vector<ParameterSpec> &parameters() const { return params; }
  const OptimizerSpec &optimizer() const { return optimizerSpec; }
  /// The export template odt-compile embeds (compiler/export): the eval
  /// model as serialized ONNX with value_info for its values. Empty when the
  /// model has no eval graph (OnnxExport.h writes inference models from it).
  const std::vector<uint8_t> &evalModelTemplate() const { return evalTemplate; }
  /// The graph inputs of the export template that are parameters.
  const std::vector<std::string> &evalModelParameters() const {
    return evalTemplateParameters;
  }
  /// nullptr if the model has no such entry point.
  const EntryPointSpec *entryPoint(EntryKind kind) const;
  /// A GPU build: its code launches kernels (gpuKernels) whose PTX is in
  /// gpuImages; it runs on a cuda device only.
  bool isGPUBuild() const { return !gpuImageSpecs.empty(); }
  const std::vector<GPUKernelSpec> &gpuKernels() const {
    return gpuKernelSpecs;
  }
  const std::vector<GPUImageSpec> &gpuImages() const { return gpuImageSpecs; }
  /// "sm_80, sm_90": the chips a GPU build has kernels for.
  std::string gpuChips() const;

private:
  CompiledModel() = default;
  Status parseDescriptor(const uint8_t *data, uint64_t size,
                         SymbolResolver resolve, void *context);

  std::string source;
  std::string modelName;
  void *library = nullptr;
  std::vector<ParameterSpec> params;
  std::vector<EntryPointSpec> entries;
  OptimizerSpec optimizerSpec;
  std::vector<uint8_t> evalTemplate;
  std::vector<std::string> evalTemplateParameters;
  std::vector<GPUKernelSpec> gpuKernelSpecs;
  std::vector<GPUImageSpec> gpuImageSpecs;
};

/// Writes the memref descriptor the generated code reads for a dense
/// row-major buffer at `address` of `shape`: allocated and aligned
/// pointers, offset 0, sizes, strides (3 + 2 * rank values).
void writeMemRefDescriptor(int64_t *descriptor, int64_t address,
                           const Shape &shape);

/// A prepared call of one entry point: the memref descriptors and the
/// argument array are allocated once, so a call allocates nothing.
class EntryCall {
public:
  EntryCall() = default;
  explicit EntryCall(const EntryPointSpec &spec);

  const EntryPointSpec &spec() const { return *entry; }
  /// Sets argument `index` to `tensor` (no copy; must stay alive until
  /// invoke). Checks dtype and rank only.
  Status set(size_t index, Tensor &tensor);
  /// The tensor argument `index` is set to (null before `set`).
  Tensor *argument(size_t index) const { return tensors[index]; }
  /// Binds symbols from the dims of every UserInput argument (in order) and
  /// checks their static dims. Errors name the input, the dim and both
  /// values.
  Status bindInputShapes(SymbolBindings &bindings) const;
  /// Checks every other argument's shape against the bindings (the outputs'
  /// too unless `includeOutputs` is false).
  Status checkOtherShapes(const SymbolBindings &bindings,
                          bool includeOutputs = true) const;
  /// For entry points with a shape function: runs it on the arguments set so
  /// far (everything but the outputs), refuses inputs whose computed sizes
  /// break a dim check, and binds the outputs' symbols to the dims it
  /// computes. A no-op otherwise.
  Status bindOutputShapes(SymbolBindings &bindings);
  /// Checks the values of inputs with a value range (class labels), so that
  /// a bad label is an error instead of a wrong loss.
  Status checkInputValues() const;
  /// The shape argument `index` must have under `bindings`.
  /// Writes into `shape` the shape argument `index` must have under
  /// `bindings` (reusing its storage).
  Status expectedShape(size_t index, const SymbolBindings &bindings,
                       Shape &shape) const;
  /// Calls the generated code; its parallel loops run on `pool` (serially
  /// when null), with denormal floats flushed to zero unless
  /// `flushDenormals` is false (FloatMode.h).
  void invoke(ThreadPool *pool = nullptr, bool flushDenormals = true);

private:
  const EntryPointSpec *entry = nullptr;
  std::vector<Tensor *> tensors;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> pointers;
  // The shape function's arguments: the non-output descriptors, then one
  // for `outputDims`.
  std::vector<void *> shapePointers;
  std::vector<int64_t> outputDims, outputDimsDescriptor;
  mutable Shape scratchShape; // checkOtherShapes' expected shape
};

} // namespace odt

#endif // ODT_RUNTIME_COMPILEDMODEL_H
