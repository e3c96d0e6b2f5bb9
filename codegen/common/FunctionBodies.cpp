//===- FunctionBodies.cpp - functions with the same body ------------------===//

#include "codegen/common/FunctionBodies.h"

#include "mlir/IR/OperationSupport.h"

using namespace mlir;

namespace odt {

llvm::hash_code hashTypeAndBody(FunctionOpInterface function) {
  llvm::hash_code hash = hash_value(function.getFunctionType());
  function.getFunctionBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

bool haveSameTypeAndBody(FunctionOpInterface a, FunctionOpInterface b) {
  return a.getFunctionType() == b.getFunctionType() &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getFunctionBody(), &b.getFunctionBody(),
             OperationEquivalence::IgnoreLocations);
}

} // namespace odt
