//===- VerifyMiddle.cpp - the shared middle's contract, enforced ----------===//
//
// See Passes.td and docs/middle-contract.md.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_VERIFYMIDDLE
#include "codegen/common/Passes.h.inc"

namespace {

/// Why `op` is outside the contract, or "" when it is inside.
std::string violation(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  StringRef name = op->getName().getStringRef();
  // Whole dialects whose every op works on tensors or scalars.
  static const llvm::StringSet<> dialects = {"linalg", "tensor", "arith",
                                             "math"};
  // Single ops of the other dialects.
  static const llvm::StringSet<> ops = {
      "builtin.module", "func.func", "func.return",
      "scf.for",        "scf.if",    "scf.while",
      "scf.condition",  "scf.yield", "bufferization.alloc_tensor"};
  if (dialect == "onnx")
    return "an onnx op that was not lowered";
  if (name == "scf.forall" || name == "scf.parallel")
    return "a parallel loop is a backend's decision";
  if (!dialects.contains(dialect) && !ops.contains(name))
    return "not an op of the middle (linalg, tensor, arith, math, and a few "
           "of func, scf and bufferization)";
  auto outside = [](Type type) {
    return isa<MemRefType, UnrankedMemRefType, VectorType>(type);
  };
  for (Type type : op->getOperandTypes())
    if (outside(type))
      return "a memref or vector operand (buffers and vectors are the "
             "backends')";
  for (Type type : op->getResultTypes())
    if (outside(type))
      return "a memref or vector result (buffers and vectors are the "
             "backends')";
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument argument : block.getArguments())
        if (outside(argument.getType()))
          return "a memref or vector block argument (buffers and vectors are "
                 "the backends')";
  if (auto func = dyn_cast<func::FuncOp>(op))
    for (Type type : llvm::concat<const Type>(func.getArgumentTypes(),
                                              func.getResultTypes()))
      if (outside(type))
        return "a memref or vector in the signature (entry points take and "
               "return tensors here)";
  return "";
}

struct VerifyMiddlePass : impl::VerifyMiddleBase<VerifyMiddlePass> {
  void runOnOperation() override {
    bool failedAny = false;
    // Each op outside the contract once; not what it holds.
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      std::string why = violation(op);
      if (why.empty())
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' breaks the middle's contract "
                         "(docs/middle-contract.md): "
                      << why;
      failedAny = true;
      return WalkResult::skip();
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
