//===- DestinationPassing.cpp - entry points write caller buffers ---------===//

#include "codegen/common/AbiRecord.h"
#include "codegen/common/Passes.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_DESTINATIONPASSING
#include "codegen/common/Passes.h.inc"

namespace {

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
      if (failed(recordCodegenArguments(func)) || failed(convert(func)))
        return signalPassFailure();
    }
  }

  /// Arguments that codegen added after the graph stage recorded the ABI
  /// (odt-vectorize-contractions' panel caches) follow the recorded ones;
  /// they join the record (AbiRecord.h) before the outputs, as the
  /// signature puts them. Codegen writes them.
  LogicalResult recordCodegenArguments(func::FuncOp func) {
    auto record = getOperation()->getAttrOfType<DictionaryAttr>(kAbiAttr);
    auto entries = record ? record.getAs<DictionaryAttr>("entries") : nullptr;
    auto entry =
        entries ? entries.getAs<DictionaryAttr>(func.getName()) : nullptr;
    if (!entry)
      return success();
    unsigned recorded = entry.getAs<ArrayAttr>("arguments").size();
    if (func.getNumArguments() < recorded)
      return func.emitError() << "entry point has " << func.getNumArguments()
                              << " arguments, fewer than the " << recorded
                              << " its ABI record lists: a pass removed some";
    SmallVector<Attribute> added;
    for (unsigned i = recorded; i < func.getNumArguments(); ++i) {
      FailureOr<DictionaryAttr> arg = describeAbiArgument(
          func.getArgAttrDict(i), func.getArgumentTypes()[i], /*writes=*/true,
          func.getName(), func.getLoc());
      if (failed(arg))
        return failure();
      added.push_back(*arg);
    }
    appendAbiArguments(getOperation(), func.getName(), added);
    return success();
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
