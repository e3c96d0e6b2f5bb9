//===- AssembleTrainingProgram.cpp - imported graphs -> entry points ------===//

#include "compiler/passes/Passes.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_ASSEMBLETRAININGPROGRAM
#include "compiler/passes/Passes.h.inc"

namespace {

/// A state update: `value`, computed by `op`, overwrites the buffer of
/// argument `arg`.
struct StateUpdate {
  Operation *op;
  Value value;
  BlockArgument arg;
};

/// The argument an operand comes from, if it is one of `func`'s.
std::optional<BlockArgument> asArgument(Value value, func::FuncOp func) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (arg && arg.getOwner() == &func.front())
    return arg;
  return std::nullopt;
}

LogicalResult collectUpdates(func::FuncOp func,
                             SmallVectorImpl<StateUpdate> &updates) {
  bool failedAny = false;
  auto tie = [&](Operation *op, Value value, Value target) {
    std::optional<BlockArgument> arg = asArgument(target, func);
    if (!arg) {
      op->emitError() << "node '" << onnx::getNodeName(op)
                      << "' updates a value that is not a graph input; odt "
                         "keeps state only in graph inputs";
      failedAny = true;
      return;
    }
    updates.push_back({op, value, *arg});
  };
  func.walk([&](Operation *op) {
    if (auto acc = dyn_cast<onnx::InPlaceAccumulatorV2Op>(op)) {
      tie(op, acc.getAccumulationBufferOut(), acc.getBuffer());
    } else if (auto acc = dyn_cast<onnx::InPlaceAccumulatorOp>(op)) {
      tie(op, acc.getNewSum(), acc.getOldSum());
    } else if (auto zero = dyn_cast<onnx::ZeroGradientOp>(op)) {
      tie(op, zero.getZeroGradient(), zero.getOldGradient());
    } else if (auto clip = dyn_cast<onnx::InplaceClipGradNormOp>(op)) {
      for (auto [value, target] :
           llvm::zip(clip.getClippedGradients(), clip.getGradients()))
        tie(op, value, target);
    } else if (auto adam = dyn_cast<onnx::AdamWOptimizerOp>(op)) {
      for (auto [value, target] :
           llvm::zip(adam.getUpdatedWeights(), adam.getWeights()))
        tie(op, value, target);
      for (auto [value, target] :
           llvm::zip(adam.getUpdatedMomentums_1(), adam.getMomentums_1()))
        tie(op, value, target);
      for (auto [value, target] :
           llvm::zip(adam.getUpdatedMomentums_2(), adam.getMomentums_2()))
        tie(op, value, target);
    } else if (auto sgd = dyn_cast<onnx::SGDOptimizerV2Op>(op)) {
      for (auto [value, target] :
           llvm::zip(sgd.getUpdatedWeights(), sgd.getWeights()))
        tie(op, value, target);
    }
  });
  return failure(failedAny);
}

struct AssembleTrainingProgramPass
    : impl::AssembleTrainingProgramBase<AssembleTrainingProgramPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(assemble(func)))
        return signalPassFailure();
    }
  }

  LogicalResult assemble(func::FuncOp func) {
    SmallVector<StateUpdate> updates;
    if (failed(collectUpdates(func, updates)))
      return failure();
    auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
    Builder builder(func.getContext());
    SmallVector<Value> results;
    SmallVector<DictionaryAttr> resultAttrs;
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      DictionaryAttr attrs = func.getResultAttrDict(index);
      auto role = attrs ? attrs.getAs<StringAttr>(kRoleAttr) : nullptr;
      if (role && role.getValue() == getRoleName(ArgRole::GradAccumFlag))
        continue; // ORT's per-parameter flags: nobody reads them
      results.push_back(value);
      resultAttrs.push_back(attrs ? attrs : builder.getDictionaryAttr({}));
    }
    llvm::DenseSet<BlockArgument> updated;
    for (const StateUpdate &update : updates) {
      if (!updated.insert(update.arg).second) {
        unsigned index = update.arg.getArgNumber();
        auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr);
        return update.op->emitError()
               << "node '" << onnx::getNodeName(update.op)
               << "' updates argument '"
               << (name ? name.str() : "#" + std::to_string(index))
               << "', which another node updates too";
      }
      NamedAttrList attrs(func.getArgAttrDict(update.arg.getArgNumber()));
      attrs.set(kTiedAttr, builder.getI64IntegerAttr(update.arg.getArgNumber()));
      results.push_back(update.value);
      resultAttrs.push_back(attrs.getDictionary(func.getContext()));
    }
    OpBuilder returnBuilder(returnOp);
    func::ReturnOp::create(returnBuilder, returnOp.getLoc(), results);
    returnOp.erase();
    SmallVector<Type> resultTypes;
    for (Value value : results)
      resultTypes.push_back(value.getType());
    func.setFunctionType(builder.getFunctionType(
        func.front().getArgumentTypes(), resultTypes));
    // All at once: the old attribute array has the old result count.
    func.setAllResultAttrs(resultAttrs);
    return success();
  }
};

} // namespace
} // namespace odt
