//===- SetCPUTarget.cpp - record the target on the module -----------------===//
//
// See Passes.td and CPUTarget.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/CPUTarget.h"
#include "codegen/cpu/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_SETCPUTARGET
#include "codegen/cpu/Passes.h.inc"

DictionaryAttr buildTargetAttr(MLIRContext *context,
                               const CPUTargetInfo &target) {
  Builder builder(context);
  NamedAttrList attrs;
  attrs.set("triple", builder.getStringAttr(target.triple));
  attrs.set("cpu", builder.getStringAttr(target.cpu));
  attrs.set("features", builder.getStringAttr(target.features));
  attrs.set("vector_width", builder.getI64IntegerAttr(target.vectorWidth));
  attrs.set("tile_rows", builder.getI64IntegerAttr(target.tileRows));
  attrs.set("native_bf16", builder.getBoolAttr(target.nativeBFloat16));
  return attrs.getDictionary(context);
}

std::optional<CPUTargetInfo> readTargetAttr(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  auto dict =
      module ? module->getAttrOfType<DictionaryAttr>(kTargetAttr) : nullptr;
  if (!dict)
    return std::nullopt;
  auto text = [&](StringRef key) {
    auto value = dict.getAs<StringAttr>(key);
    return value ? value.str() : std::string();
  };
  auto width = dict.getAs<IntegerAttr>("vector_width");
  auto rows = dict.getAs<IntegerAttr>("tile_rows");
  auto bf16 = dict.getAs<BoolAttr>("native_bf16");
  if (!width || !rows || width.getInt() <= 0 || rows.getInt() <= 0)
    return std::nullopt;
  CPUTargetInfo target;
  target.triple = text("triple");
  target.cpu = text("cpu");
  target.features = text("features");
  target.vectorWidth = width.getInt();
  target.tileRows = rows.getInt();
  target.nativeBFloat16 = bf16 && bf16.getValue();
  return target;
}

namespace {

struct SetCPUTargetPass : impl::SetCPUTargetBase<SetCPUTargetPass> {
  using SetCPUTargetBase::SetCPUTargetBase;

  void runOnOperation() override {
    if (vectorWidth == 0 || rows == 0) {
      getOperation().emitError(
          "odt-set-cpu-target: vector-width and rows must be positive");
      return signalPassFailure();
    }
    CPUTargetInfo target;
    target.triple = triple;
    target.cpu = cpu;
    target.features = features;
    target.vectorWidth = vectorWidth;
    target.tileRows = rows;
    target.nativeBFloat16 = nativeBFloat16;
    getOperation()->setAttr(kTargetAttr,
                            buildTargetAttr(&getContext(), target));
  }
};

} // namespace
} // namespace odt
