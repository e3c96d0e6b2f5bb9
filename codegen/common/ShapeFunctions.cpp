//===- ShapeFunctions.cpp - output shapes computed at run time ------------===//

#include "codegen/common/ShapeFunctions.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace odt {

bool needsShapeFunction(func::FuncOp entry) {
  if (!entry.getOps<cf::AssertOp>().empty())
    return true;
  llvm::StringSet<> bound;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (auto dims = entry.getArgAttrOfType<ArrayAttr>(i, kDimsAttr))
      for (Attribute dim : dims)
        if (auto symbol = dyn_cast<StringAttr>(dim))
          bound.insert(symbol.getValue());
  for (unsigned r = 0; r < entry.getNumResults(); ++r) {
    if (entry.getResultAttr(r, kTiedAttr))
      continue;
    auto type = dyn_cast<RankedTensorType>(entry.getResultTypes()[r]);
    auto dims = entry.getResultAttrOfType<ArrayAttr>(r, kDimsAttr);
    if (!type)
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      auto symbol = dims && d < static_cast<int64_t>(dims.size())
                        ? dyn_cast<StringAttr>(dims[d])
                        : StringAttr();
      if (!symbol || !bound.contains(symbol.getValue()))
        return true;
    }
  }
  return false;
}

int64_t getOutputDimCount(func::FuncOp entry) {
  int64_t count = 0;
  for (unsigned r = 0; r < entry.getNumResults(); ++r)
    if (!entry.getResultAttr(r, kTiedAttr))
      count += cast<RankedTensorType>(entry.getResultTypes()[r]).getRank();
  return count;
}

} // namespace odt
