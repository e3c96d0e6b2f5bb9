//===- EntryModules.cpp - one module per entry point, and back ------------===//
//
// See Passes.td (odt-split-entry-modules, odt-merge-entry-modules).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/FunctionBodies.h"
#include "codegen/common/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_SPLITENTRYMODULES
#define GEN_PASS_DEF_MERGEENTRYMODULES
#include "codegen/common/Passes.h.inc"

namespace {

/// A public function with a body: an entry point of the model (a step or
/// its shape function).
bool isEntryFunction(Operation &op) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  return function && function.isPublic() && !function.isExternal();
}

/// Whether no other module can refer to the symbol `op`: private to MLIR,
/// or of private or internal linkage in the LLVM dialect (whose globals
/// keep MLIR's default, public, visibility).
bool isLocalSymbol(Operation *op) {
  if (SymbolTable::getSymbolVisibility(op) == SymbolTable::Visibility::Private)
    return true;
  std::optional<LLVM::Linkage> linkage;
  if (auto global = dyn_cast<LLVM::GlobalOp>(op))
    linkage = global.getLinkage();
  else if (auto function = dyn_cast<LLVM::LLVMFuncOp>(op))
    linkage = function.getLinkage();
  return linkage && (*linkage == LLVM::Linkage::Private ||
                     *linkage == LLVM::Linkage::Internal);
}

/// Whether `op` has a region with blocks (a body, an initializer).
bool hasRegionContent(Operation *op) {
  return llvm::any_of(op->getRegions(),
                      [](Region &region) { return !region.empty(); });
}

/// Whether the later of two same-named symbols can be dropped for the
/// earlier: the same declaration, or the same global without initializer
/// code. Symbols with bodies are not compared: their bodies name other
/// symbols, which may be renamed.
bool isSameLeafSymbol(Operation *earlier, Operation *later) {
  if (hasRegionContent(earlier) || hasRegionContent(later))
    return false;
  return OperationEquivalence::isEquivalentTo(
      earlier, later, OperationEquivalence::IgnoreLocations);
}

/// The merged value of one attribute over the nested modules (null where a
/// module lacks it): a dictionary key naming an entry function comes from
/// that function's module, other values must agree.
FailureOr<Attribute> mergeAttribute(MLIRContext *context, Twine path,
                                    ArrayRef<Attribute> values,
                                    const llvm::StringMap<unsigned> &owners,
                                    std::string &error) {
  Attribute first;
  bool allEqual = true;
  for (Attribute value : values) {
    if (!value)
      continue;
    if (!first)
      first = value;
    else if (value != first)
      allEqual = false;
  }
  if (allEqual)
    return first;
  if (!llvm::all_of(values, [](Attribute value) {
        return !value || isa<DictionaryAttr>(value);
      })) {
    error = ("the entry points' modules disagree on '" + path + "'").str();
    return failure();
  }
  llvm::SetVector<StringAttr> keys;
  for (Attribute value : values)
    if (value)
      for (NamedAttribute entry : cast<DictionaryAttr>(value))
        keys.insert(entry.getName());
  NamedAttrList merged;
  for (StringAttr key : keys) {
    auto valueIn = [&](Attribute dictionary) -> Attribute {
      return dictionary ? cast<DictionaryAttr>(dictionary).get(key) : nullptr;
    };
    auto owner = owners.find(key.getValue());
    if (owner != owners.end()) {
      if (Attribute owned = valueIn(values[owner->second]))
        merged.append(key, owned);
      continue;
    }
    SmallVector<Attribute> keyValues;
    for (Attribute value : values)
      keyValues.push_back(valueIn(value));
    FailureOr<Attribute> value = mergeAttribute(
        context, path + "." + key.getValue(), keyValues, owners, error);
    if (failed(value))
      return failure();
    merged.append(key, *value);
  }
  return Attribute(merged.getDictionary(context));
}

/// Replaces the references to the symbols `replacement` maps, in every op
/// under `root` (one walk, however many symbols).
void replaceSymbolReferences(
    Operation *root, const DenseMap<StringAttr, StringAttr> &replacement) {
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](SymbolRefAttr reference) -> std::optional<Attribute> {
        auto found = replacement.find(reference.getRootReference());
        if (found == replacement.end())
          return std::nullopt;
        return SymbolRefAttr::get(found->second,
                                  reference.getNestedReferences());
      });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/false);
}

/// The function's attributes but its name.
DictionaryAttr attributesButName(FunctionOpInterface function) {
  NamedAttrList attributes(function->getAttrDictionary());
  attributes.erase(SymbolTable::getSymbolAttrName());
  return attributes.getDictionary(function->getContext());
}

/// Folds each private function into an earlier one with the same type,
/// attributes and body, until none is left: the entry points share kernels
/// (eval's forward products are train's), each entry's module outlined its
/// own copy, and LLVM would compile each again. Bodies name the symbols
/// they call, so two callers become identical once their callees are
/// folded: hence the rounds.
void foldIdenticalFunctions(ModuleOp module) {
  for (;;) {
    DenseMap<llvm::hash_code, SmallVector<FunctionOpInterface, 1>> byHash;
    DenseMap<StringAttr, StringAttr> replacement;
    SmallVector<Operation *> folded;
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (!isLocalSymbol(function) || function.isExternal())
        continue;
      auto &candidates = byHash[hashTypeAndBody(function)];
      auto same = llvm::find_if(candidates, [&](FunctionOpInterface other) {
        return attributesButName(other) == attributesButName(function) &&
               haveSameTypeAndBody(other, function);
      });
      if (same == candidates.end()) {
        candidates.push_back(function);
        continue;
      }
      replacement[function.getNameAttr()] = same->getNameAttr();
      folded.push_back(function);
    }
    if (folded.empty())
      return;
    replaceSymbolReferences(module, replacement);
    for (Operation *function : folded)
      function->erase();
  }
}

struct SplitEntryModulesPass
    : impl::SplitEntryModulesBase<SplitEntryModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Block *body = module.getBody();
    SmallVector<Operation *> original =
        llvm::map_to_vector(*body, [](Operation &op) { return &op; });
    NamedAttrList attributes(module->getAttrDictionary());
    attributes.erase(SymbolTable::getSymbolAttrName());
    SmallVector<Operation *> entries = llvm::filter_to_vector(
        original, [](Operation *op) { return isEntryFunction(*op); });
    // Without an entry point, one module holds everything, so that the
    // nested pipeline still runs on it.
    if (entries.empty())
      entries.push_back(nullptr);
    OpBuilder builder(module.getContext());
    for (Operation *entry : entries) {
      builder.setInsertionPointToEnd(body);
      auto part = ModuleOp::create(builder, module.getLoc());
      part->setAttrs(attributes.getDictionary(module.getContext()));
      builder.setInsertionPointToEnd(part.getBody());
      for (Operation *op : original)
        if (op == entry || !isEntryFunction(*op))
          builder.clone(*op);
    }
    // Only symbols refer to each other at this level: no op uses another's
    // results, so the order of erasure does not matter.
    for (Operation *op : original)
      op->erase();
  }
};

/// See odt-merge-entry-modules (Passes.td).
LogicalResult mergeEntryModules(ModuleOp module) {
  MLIRContext *context = module.getContext();
  SmallVector<ModuleOp> parts = llvm::to_vector(module.getOps<ModuleOp>());
  if (parts.size() != module.getBody()->getOperations().size())
    return module.emitError("internal error: odt-merge-entry-modules expects "
                            "only the nested modules of "
                            "odt-split-entry-modules");

  // Attributes, before any op moves: the owners are the nested modules'
  // entry functions.
  llvm::StringMap<unsigned> owners;
  for (auto [index, part] : llvm::enumerate(parts))
    for (Operation &op : part.getBody()->getOperations())
      if (isEntryFunction(op))
        owners[SymbolTable::getSymbolName(&op).getValue()] = index;
  llvm::SetVector<StringAttr> names;
  for (ModuleOp part : parts)
    for (NamedAttribute attribute : part->getAttrs())
      names.insert(attribute.getName());
  NamedAttrList merged;
  if (auto name = module->getAttr(SymbolTable::getSymbolAttrName()))
    merged.append(SymbolTable::getSymbolAttrName(), name);
  for (StringAttr name : names) {
    SmallVector<Attribute> values;
    for (ModuleOp part : parts)
      values.push_back(part->getAttr(name));
    std::string error;
    FailureOr<Attribute> value =
        mergeAttribute(context, name.getValue(), values, owners, error);
    if (failed(value))
      return module.emitError("internal error: ") << error;
    merged.append(name, *value);
  }
  module->setAttrs(merged.getDictionary(context));

  SymbolTable table(module);
  for (auto [index, part] : llvm::enumerate(parts)) {
    SymbolTable partTable(part);
    DenseMap<StringAttr, StringAttr> renamed;
    SmallVector<Operation *> duplicates;
    for (Operation &op : part.getBody()->getOperations()) {
      auto name =
          op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      if (!name)
        continue;
      Operation *existing = table.lookup(name);
      if (!existing)
        continue;
      if (isSameLeafSymbol(existing, &op)) {
        duplicates.push_back(&op);
        continue;
      }
      if (!isLocalSymbol(&op))
        return op.emitError("internal error: two entry points' modules "
                            "define '")
               << name.getValue() << "'";
      // `<name>.<n>`: a name the outliners and bufferization do not make.
      for (unsigned n = index;; ++n) {
        auto candidate =
            StringAttr::get(context, name.getValue() + "." + Twine(n));
        if (!table.lookup(candidate) && !partTable.lookup(candidate)) {
          renamed[name] = candidate;
          break;
        }
      }
    }
    if (!renamed.empty()) {
      replaceSymbolReferences(part, renamed);
      for (Operation &op : part.getBody()->getOperations())
        if (auto name =
                op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
          if (auto found = renamed.find(name); found != renamed.end())
            SymbolTable::setSymbolName(&op, found->second);
    }
    for (Operation *duplicate : duplicates)
      duplicate->erase();
    for (Operation &op : llvm::make_early_inc_range(*part.getBody())) {
      op.remove();
      if (op.hasAttr(SymbolTable::getSymbolAttrName()))
        table.insert(&op, module.getBody()->end());
      else
        module.getBody()->push_back(&op);
    }
    part->erase();
  }
  foldIdenticalFunctions(module);
  return success();
}

struct MergeEntryModulesPass
    : impl::MergeEntryModulesBase<MergeEntryModulesPass> {
  void runOnOperation() override {
    if (failed(mergeEntryModules(getOperation())))
      signalPassFailure();
  }
};

} // namespace

} // namespace odt
