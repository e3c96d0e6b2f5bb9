//===- RecordAbi.cpp - the entry points' ABI, before lowering erases it ---===//
//
// odt-record-abi and the helpers that keep its record (AbiRecord.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/AbiRecord.h"
#include "codegen/common/Passes.h"
#include "codegen/common/ShapeFunctions.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_RECORDABI
#include "codegen/common/Passes.h.inc"

namespace {

/// The values an integer input may hold, and the op that narrows them most.
struct IndexRange {
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
void findIndexRange(BlockArgument arg, IndexRange &info) {
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

/// `dims` as the record holds them: a size, or the symbol of a dynamic dim.
FailureOr<ArrayAttr> describeDims(RankedTensorType type, ArrayAttr symbols,
                                  StringRef name, Location loc) {
  Builder builder(type.getContext());
  SmallVector<Attribute> dims;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      dims.push_back(builder.getI64IntegerAttr(type.getDimSize(d)));
    } else if (symbols && d < static_cast<int64_t>(symbols.size()) &&
               isa<StringAttr>(symbols[d])) {
      dims.push_back(symbols[d]);
    } else {
      return emitError(loc) << "'" << name << "' has a dynamic dim " << d
                            << " without a symbol";
    }
  }
  return builder.getArrayAttr(dims);
}

struct RecordAbiPass : impl::RecordAbiBase<RecordAbiPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    NamedAttrList record;
    FailureOr<ArrayAttr> parameters = recordParameters(module);
    if (failed(parameters))
      return signalPassFailure();
    record.set("parameters", *parameters);
    NamedAttrList entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!isEntryPoint(func))
        continue;
      FailureOr<DictionaryAttr> entry = recordEntry(func);
      if (failed(entry))
        return signalPassFailure();
      entries.set(func.getName(), *entry);
    }
    record.set("entries", entries.getDictionary(&getContext()));
    if (auto optimizer = module.lookupSymbol<func::FuncOp>("optimizer"))
      record.set("optimizer", recordOptimizer(optimizer));
    module->setAttr(kAbiAttr, record.getDictionary(&getContext()));
  }

  FailureOr<ArrayAttr> recordParameters(ModuleOp module) {
    Builder builder(&getContext());
    auto parameters = module->getAttrOfType<ArrayAttr>(kParametersAttr);
    if (!parameters) {
      module.emitError() << "module has no " << kParametersAttr;
      return failure();
    }
    SmallVector<Attribute> recorded;
    for (auto dict : parameters.getAsRange<DictionaryAttr>()) {
      auto type =
          cast<RankedTensorType>(dict.getAs<TypeAttr>("type").getValue());
      recorded.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("name", dict.get("name")),
          builder.getNamedAttr("data_type",
                               builder.getI32IntegerAttr(
                                   getONNXDataType(type.getElementType()))),
          builder.getNamedAttr("dims",
                               builder.getI64ArrayAttr(type.getShape())),
          builder.getNamedAttr("trainable", dict.get("trainable")),
      }));
    }
    return builder.getArrayAttr(recorded);
  }

  FailureOr<DictionaryAttr> recordEntry(func::FuncOp func) {
    Builder builder(&getContext());
    SmallVector<bool> written(func.getNumArguments(), false);
    for (unsigned r = 0; r < func.getNumResults(); ++r)
      if (auto tied = func.getResultAttrOfType<IntegerAttr>(r, kTiedAttr))
        if (tied.getInt() >= 0 && tied.getInt() < func.getNumArguments())
          written[tied.getInt()] = true;
    SmallVector<Attribute> arguments, outputs;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      FailureOr<DictionaryAttr> arg = describeAbiArgument(
          func.getArgAttrDict(i), func.getArgumentTypes()[i], written[i],
          func.getName(), func.getLoc());
      if (failed(arg))
        return failure();
      auto role = parseRole(arg->getAs<StringAttr>("role").getValue());
      if (role == ArgRole::UserInput)
        arg = withIndexRange(*arg, func.getArgument(i));
      arguments.push_back(*arg);
    }
    for (unsigned r = 0; r < func.getNumResults(); ++r) {
      if (func.getResultAttr(r, kTiedAttr))
        continue;
      // Dims no input binds are computed at run time by the entry point's
      // shape function (made for these and for dim checks:
      // needsShapeFunction).
      FailureOr<DictionaryAttr> output = describeAbiArgument(
          func.getResultAttrDict(r), func.getResultTypes()[r],
          /*writes=*/true, func.getName(), func.getLoc());
      if (failed(output))
        return failure();
      outputs.push_back(*output);
    }
    NamedAttrList entry;
    entry.set("arguments", builder.getArrayAttr(arguments));
    entry.set("outputs", builder.getArrayAttr(outputs));
    if (needsShapeFunction(func))
      entry.set("shape_function", builder.getUnitAttr());
    if (auto divisibility = func->getAttrOfType<ArrayAttr>(kDivisibilityAttr))
      entry.set("divisibility", divisibility);
    return entry.getDictionary(&getContext());
  }

  DictionaryAttr withIndexRange(DictionaryAttr arg, BlockArgument value) {
    IndexRange range;
    findIndexRange(value, range);
    if (!range.valueRange)
      return arg;
    Builder builder(&getContext());
    NamedAttrList list(arg);
    list.set("value_range",
             builder.getI64ArrayAttr(
                 {range.valueRange->first, range.valueRange->second}));
    if (range.valueException)
      list.set("value_exception",
               builder.getI64IntegerAttr(*range.valueException));
    list.set("value_range_reason",
             builder.getStringAttr(range.valueRangeReason));
    return list.getDictionary(&getContext());
  }

  /// The optimizer's kind and hyper-parameters, for people and for checks in
  /// the runtime; empty if the function holds no optimizer op.
  DictionaryAttr recordOptimizer(func::FuncOp func) {
    Builder builder(&getContext());
    DictionaryAttr info = builder.getDictionaryAttr({});
    func.walk([&](Operation *op) {
      if (auto adam = dyn_cast<onnx::AdamWOptimizerOp>(op)) {
        info = builder.getDictionaryAttr({
            builder.getNamedAttr("kind", builder.getStringAttr("AdamW")),
            builder.getNamedAttr("alpha", adam.getAlphaAttr()),
            builder.getNamedAttr("beta", adam.getBetaAttr()),
            builder.getNamedAttr("epsilon", adam.getEpsilonAttr()),
            builder.getNamedAttr("weight_decay", adam.getWeightDecayAttr()),
            builder.getNamedAttr(
                "correct_bias",
                builder.getBoolAttr(adam.getCorrectBias() == 1)),
            builder.getNamedAttr("adam_mode",
                                 builder.getI64IntegerAttr(adam.getAdamMode())),
        });
      } else if (isa<onnx::SGDOptimizerV2Op>(op)) {
        info = builder.getDictionaryAttr(
            {builder.getNamedAttr("kind", builder.getStringAttr("SGD"))});
      }
    });
    return info;
  }
};

} // namespace

bool isEntryPoint(func::FuncOp func) {
  if (func.isExternal())
    return false;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kRoleAttr))
      return true;
  return func.getNumArguments() == 0 && func.getNumResults() > 0;
}

FailureOr<DictionaryAttr> describeAbiArgument(DictionaryAttr attrs, Type type,
                                              bool writes, StringRef entry,
                                              Location loc) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  auto name = attrs ? attrs.getAs<StringAttr>(kNameAttr) : nullptr;
  auto roleName = attrs ? attrs.getAs<StringAttr>(kRoleAttr) : nullptr;
  if (!tensorType || !name || !roleName || !parseRole(roleName.getValue()))
    return emitError(loc) << "entry point '" << entry
                          << "' has a buffer without name, role or ranked "
                             "tensor type";
  FailureOr<ArrayAttr> dims = describeDims(
      tensorType, attrs.getAs<ArrayAttr>(kDimsAttr), name.getValue(), loc);
  if (failed(dims))
    return failure();
  Builder builder(type.getContext());
  NamedAttrList list;
  list.set("name", name);
  list.set("role", roleName);
  list.set("data_type", builder.getI32IntegerAttr(
                            getONNXDataType(tensorType.getElementType())));
  list.set("dims", *dims);
  list.set("writes", builder.getBoolAttr(writes));
  if (auto param = attrs.getAs<IntegerAttr>(kParamAttr))
    list.set("parameter", builder.getI64IntegerAttr(param.getInt()));
  return list.getDictionary(type.getContext());
}

DictionaryAttr getAbiEntry(ModuleOp module, StringRef entry) {
  auto record = module->getAttrOfType<DictionaryAttr>(kAbiAttr);
  auto entries = record ? record.getAs<DictionaryAttr>("entries") : nullptr;
  return entries ? entries.getAs<DictionaryAttr>(entry) : nullptr;
}

void setAbiEntryField(ModuleOp module, StringRef entry, StringRef name,
                      Attribute value) {
  DictionaryAttr recorded = getAbiEntry(module, entry);
  if (!recorded)
    return;
  MLIRContext *context = module.getContext();
  auto record = module->getAttrOfType<DictionaryAttr>(kAbiAttr);
  NamedAttrList updatedEntry(recorded);
  updatedEntry.set(name, value);
  NamedAttrList updatedEntries(record.getAs<DictionaryAttr>("entries"));
  updatedEntries.set(entry, updatedEntry.getDictionary(context));
  NamedAttrList updatedRecord(record);
  updatedRecord.set("entries", updatedEntries.getDictionary(context));
  module->setAttr(kAbiAttr, updatedRecord.getDictionary(context));
}

void appendAbiArguments(ModuleOp module, StringRef entry,
                        ArrayRef<Attribute> arguments) {
  DictionaryAttr recorded = getAbiEntry(module, entry);
  if (!recorded || arguments.empty())
    return;
  SmallVector<Attribute> all(recorded.getAs<ArrayAttr>("arguments").getValue());
  all.append(arguments.begin(), arguments.end());
  setAbiEntryField(module, entry, "arguments",
                   ArrayAttr::get(module.getContext(), all));
}

} // namespace odt
