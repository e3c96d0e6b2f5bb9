//===- AddRandomState.cpp - the session's random state for Dropout --------===//

#include "compiler/passes/Passes.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_ADDRANDOMSTATE
#include "compiler/passes/Passes.h.inc"

namespace {

/// Whether `dropout` may drop anything: training_mode is given and not a
/// constant false.
bool mayTrain(onnx::DropoutOp dropout) {
  Value mode = dropout.getTrainingMode();
  if (onnx::isNoValue(mode))
    return false;
  DenseElementsAttr constant;
  return !matchPattern(mode, m_Constant(&constant)) ||
         *constant.getValues<bool>().begin();
}

struct AddRandomStatePass
    : public impl::AddRandomStateBase<AddRandomStatePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || getRandomStateArgument(func))
        continue;
      bool needed = false;
      func.walk([&](onnx::DropoutOp dropout) {
        needed |= mayTrain(dropout);
        return needed ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (!needed)
        continue;
      Builder b(func.getContext());
      auto type = RankedTensorType::get({2}, b.getI64Type());
      NamedAttrList attrs;
      attrs.set(kNameAttr, b.getStringAttr(kRandomStateName));
      attrs.set(kRoleAttr, b.getStringAttr(getRoleName(ArgRole::RandomState)));
      attrs.set(kDimsAttr, b.getArrayAttr({b.getI64IntegerAttr(2)}));
      unsigned index = func.getNumArguments();
      if (failed(func.insertArgument(index, type,
                                     attrs.getDictionary(func.getContext()),
                                     func.getLoc())))
        return signalPassFailure();
    }
  }
};

} // namespace

} // namespace odt
