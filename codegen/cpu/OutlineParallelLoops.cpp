//===- OutlineParallelLoops.cpp - parallel loop bodies as functions -------===//
//
// See Passes.td. The function boundary is what lets a thread pool in the
// runtime run ranges of the loop: the LLVM-level half of the protocol is in
// PackEntryPoints.cpp (a task that unpacks a context struct and calls the
// outlined function, and the call of the parallel hook).
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#include "codegen/cpu/Passes.h.inc"

namespace {

bool isConstantIndex(Value value, int64_t expected) {
  APInt constant;
  return matchPattern(value, m_ConstantInt(&constant)) &&
         constant.getSExtValue() == expected;
}

struct OutlineParallelLoopsPass
    : impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ParallelOp> loops;
    module.walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() == 1 && loop.getInitVals().empty() &&
          isConstantIndex(loop.getLowerBound()[0], 0) &&
          isConstantIndex(loop.getStep()[0], 1) &&
          loop->getParentOfType<func::FuncOp>())
        loops.push_back(loop);
    });
    unsigned counter = 0;
    for (scf::ParallelOp loop : loops)
      outline(module, loop, counter);
  }

  /// A hash of a function's type and the kinds and attributes of its ops:
  /// equal for functions that may be identical, which are then compared.
  static llvm::hash_code shapeHash(func::FuncOp function) {
    llvm::hash_code hash = hash_value(function.getFunctionType());
    function.getBody().walk([&](Operation *op) {
      hash = llvm::hash_combine(hash,
                                OperationEquivalence::computeHash(
                                    op, OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::IgnoreLocations));
    });
    return hash;
  }

  /// The already outlined function with the same type and body as
  /// `function`, or null. A network repeats its blocks (ResNet's stages,
  /// a transformer's layers): their loops are one function, compiled once;
  /// without this, LLVM optimized and emitted each copy again.
  func::FuncOp findIdentical(func::FuncOp function) {
    auto &candidates = outlinedByHash[shapeHash(function)];
    for (func::FuncOp candidate : candidates)
      if (candidate.getFunctionType() == function.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &candidate.getBody(), &function.getBody(),
              OperationEquivalence::IgnoreLocations))
        return candidate;
    candidates.push_back(function);
    return nullptr;
  }

  void outline(ModuleOp module, scf::ParallelOp loop, unsigned &counter) {
    MLIRContext *context = module.getContext();
    Location loc = loop.getLoc();
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop.getRegion(), used);
    SmallVector<Value> captured;
    SmallVector<Operation *> constants;
    for (Value value : used) {
      Operation *producer = value.getDefiningOp();
      if (producer && producer->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(producer);
      else
        captured.push_back(value);
    }

    std::string name;
    do
      name = "__odt_par_" + std::to_string(counter++);
    while (module.lookupSymbol(name));
    Type index = IndexType::get(context);
    SmallVector<Type> types = {index, index};
    for (Value value : captured)
      types.push_back(value.getType());
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(module.getBody());
    auto function = func::FuncOp::create(builder, loc, name,
                                         builder.getFunctionType(types, {}));
    function.setPrivate();
    Block *entry = function.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (Operation *constant : constants)
      builder.clone(*constant, mapping);
    for (auto [value, argument] :
         llvm::zip(captured, entry->getArguments().drop_front(2)))
      mapping.map(value, argument);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    auto serial = scf::ForOp::create(builder, loc, entry->getArgument(0),
                                     entry->getArgument(1), one);
    mapping.map(loop.getInductionVars()[0], serial.getInductionVar());
    builder.setInsertionPointToStart(serial.getBody());
    for (Operation &op : loop.getBody()->without_terminator())
      builder.clone(op, mapping);
    builder.setInsertionPointToEnd(entry);
    func::ReturnOp::create(builder, loc);
    if (func::FuncOp identical = findIdentical(function)) {
      function.erase();
      function = identical;
    }

    builder.setInsertionPoint(loop);
    SmallVector<Value> operands = {loop.getLowerBound()[0],
                                   loop.getUpperBound()[0]};
    operands.append(captured);
    func::CallOp::create(builder, loc, function, operands);
    loop.erase();
  }

  llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> outlinedByHash;
};

} // namespace
} // namespace odt
