//===- DestinationPassing.cpp - entry points write caller buffers ---------===//

#include "codegen/common/Passes.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_DESTINATIONPASSING
#include "codegen/common/Passes.h.inc"

namespace {

bool isEntryPoint(func::FuncOp func) {
  if (func.isExternal())
    return false;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kRoleAttr))
      return true;
  return func.getNumArguments() == 0 && func.getNumResults() > 0;
}

MemRefType toMemRef(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

struct DestinationPassingPass
    : impl::DestinationPassingBase<DestinationPassingPass> {
  void runOnOperation() override {
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>())) {
      if (!isEntryPoint(func))
        continue;
      recordCodegenArguments(func);
      if (failed(convert(func)))
        return signalPassFailure();
    }
  }

  /// Arguments that codegen added after the descriptor was built from the
  /// graph (odt-vectorize-contractions' panel caches) are listed in the
  /// module attribute kCodegenArgumentsAttr (entry name -> their attribute
  /// dictionaries, each with its tensor type under "type"), in argument
  /// order, for odt-compile to add to the descriptor.
  void recordCodegenArguments(func::FuncOp func) {
    SmallVector<Attribute> added;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      DictionaryAttr attrs = func.getArgAttrDict(i);
      auto role = attrs ? attrs.getAs<StringAttr>(kRoleAttr) : nullptr;
      std::optional<ArgRole> parsed =
          role ? parseRole(role.getValue()) : std::nullopt;
      if (!parsed ||
          (*parsed != ArgRole::PackedPanels && *parsed != ArgRole::PanelsStale))
        continue;
      NamedAttrList list(attrs);
      list.set("type", TypeAttr::get(func.getArgumentTypes()[i]));
      added.push_back(list.getDictionary(func.getContext()));
    }
    if (added.empty())
      return;
    ModuleOp module = getOperation();
    NamedAttrList all;
    if (auto existing =
            module->getAttrOfType<DictionaryAttr>(kCodegenArgumentsAttr))
      all.append(existing.getValue());
    all.set(func.getName(), ArrayAttr::get(func.getContext(), added));
    module->setAttr(kCodegenArgumentsAttr,
                    all.getDictionary(func.getContext()));
  }

  LogicalResult convert(func::FuncOp func) {
    MLIRContext *context = func.getContext();
    Block &body = func.front();
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    unsigned numArgs = func.getNumArguments();

    // Which arguments does a result overwrite?
    SmallVector<std::optional<unsigned>> tiedArg(func.getNumResults());
    llvm::SmallBitVector written(numArgs);
    for (unsigned r = 0; r < func.getNumResults(); ++r) {
      Type resultType = func.getResultTypes()[r];
      if (!isa<RankedTensorType>(resultType))
        return func.emitError() << "entry-point result " << r
                                << " is not a ranked tensor";
      if (auto tied = func.getResultAttrOfType<IntegerAttr>(r, kTiedAttr)) {
        int64_t arg = tied.getInt();
        if (arg < 0 || arg >= numArgs ||
            func.getArgumentTypes()[arg] != resultType)
          return func.emitError()
                 << "entry-point result " << r << " is tied to argument "
                 << arg << ", which is not an argument of type " << resultType;
        tiedArg[r] = arg;
        written.set(arg);
      }
    }

    SmallVector<Type> newArgTypes;
    SmallVector<DictionaryAttr> newArgAttrs;
    for (unsigned i = 0; i < numArgs; ++i) {
      auto tensorType = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
      if (!tensorType)
        return func.emitError() << "entry-point argument " << i
                                << " is not a ranked tensor";
      newArgTypes.push_back(toMemRef(tensorType));
      newArgAttrs.push_back(func.getArgAttrDict(i)
                                ? func.getArgAttrDict(i)
                                : DictionaryAttr::get(context));
    }
    SmallVector<unsigned> outputArg(func.getNumResults());
    for (unsigned r = 0; r < func.getNumResults(); ++r) {
      if (tiedArg[r]) {
        outputArg[r] = *tiedArg[r];
        continue;
      }
      outputArg[r] = newArgTypes.size();
      newArgTypes.push_back(toMemRef(func.getResultTypes()[r]));
      newArgAttrs.push_back(func.getResultAttrDict(r)
                                ? func.getResultAttrDict(r)
                                : DictionaryAttr::get(context));
    }

    // Rewrite the body: each old tensor argument reads its memref.
    OpBuilder builder(context);
    builder.setInsertionPointToStart(&body);
    SmallVector<BlockArgument> memrefArgs;
    for (unsigned i = 0; i < newArgTypes.size(); ++i)
      memrefArgs.push_back(body.addArgument(
          newArgTypes[i], i < numArgs ? body.getArgument(i).getLoc()
                                      : func.getLoc()));
    for (unsigned i = 0; i < numArgs; ++i) {
      BlockArgument oldArg = body.getArgument(i);
      auto toTensor = bufferization::ToTensorOp::create(
          builder, oldArg.getLoc(), oldArg.getType(), memrefArgs[i],
          /*restrict=*/true, /*writable=*/written.test(i));
      oldArg.replaceAllUsesWith(toTensor.getResult());
    }
    builder.setInsertionPoint(returnOp);
    for (auto [r, value] : llvm::enumerate(returnOp.getOperands())) {
      auto materialize = bufferization::MaterializeInDestinationOp::create(
          builder, returnOp.getLoc(), TypeRange{}, value,
          memrefArgs[outputArg[r]]);
      materialize.setRestrict(true);
      materialize.setWritable(true);
    }
    func::ReturnOp::create(builder, returnOp.getLoc());
    returnOp.erase();
    body.eraseArguments(0, numArgs);

    func.setFunctionType(FunctionType::get(context, newArgTypes, {}));
    func.setAllArgAttrs(newArgAttrs);
    func.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(context));
    return success();
  }
};

} // namespace
} // namespace odt
